/// Parsed command-line words: positional arguments and `--name value` / `--name=value` /
/// `--switch` flags. Only the flags a command declares are accepted; anything else is a usage
/// error (exit 2).
struct Flags {
    var positional: [String] = []
    var values: [String: String] = [:]
    var switches: Set<String> = []

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    /// - Parameters:
    ///   - valued: flags that take a value (without `--`).
    ///   - switches: flags without one (`help` is always accepted).
    init(_ words: [String], valued: Set<String>, switches known: Set<String>) throws(UsageError) {
        var i = 0
        while i < words.count {
            let w = words[i]
            i += 1
            guard w.hasPrefix("--"), w.count > 2 else {
                if w.hasPrefix("-") && w != "-" && w != "-h" { throw UsageError(description: "unknown flag \(w)") }
                if w == "-h" { switches.insert("help") } else { positional.append(w) }
                continue
            }
            var name = String(w.dropFirst(2)), value: String?
            if let eq = name.firstIndex(of: "=") {
                value = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            if name == "help" || known.contains(name) {
                guard value == nil else { throw UsageError(description: "--\(name) takes no value") }
                switches.insert(name)
            } else if valued.contains(name) {
                if value == nil {
                    guard i < words.count else { throw UsageError(description: "--\(name) needs a value") }
                    value = words[i]
                    i += 1
                }
                values[name] = value
            } else {
                throw UsageError(description: "unknown flag --\(name)")
            }
        }
    }

    var help: Bool { switches.contains("help") }
}
