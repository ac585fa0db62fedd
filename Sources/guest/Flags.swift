/// A flag a command takes: `--name` alone, or `--name VALUE` / `--name=VALUE`.
struct Flag: Sendable {
    let name: String
    /// The value's placeholder (`DIR`); nil for a switch.
    let value: String?
    let repeatable: Bool
    let help: String

    /// A switch.
    init(_ name: String, _ help: String) {
        self.name = name; self.value = nil; self.repeatable = false; self.help = help
    }

    /// A flag with a value.
    init(_ name: String, _ value: String, repeatable: Bool = false, _ help: String) {
        self.name = name; self.value = value; self.repeatable = repeatable; self.help = help
    }

    /// Flags every command takes.
    static let global: [Flag] = [
        Flag("--data-dir", "DIR", "data directory (default $XDG_DATA_HOME/homebase/guest)"),
        Flag("--llama-server", "PATH", "llama-server binary (default: config, PATH, then $HOMEBASE_ENGINE_DIR/bin)"),
        Flag("--model-path", "FILE", "a GGUF file served as the built-in on-device model"),
        Flag("--help", "show this help"),
    ]
}

/// A bad command line: what is wrong and how to fix it. Exit status 2.
struct UsageError: Error {
    let message: String
}

/// A command line parsed against a command's flags.
struct ParsedArguments: Sendable {
    var values: [String: [String]] = [:]
    var positionals: [String] = []

    func has(_ name: String) -> Bool { values[name] != nil }
    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }

    /// `--` ends the flags; a lone `-` and anything not starting with `--` is positional.
    static func parse(_ args: [String], flags: [Flag]) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var i = 0
        var flagsDone = false
        while i < args.count {
            let arg = args[i]
            i += 1
            if flagsDone || !arg.hasPrefix("-") || arg == "-" { parsed.positionals.append(arg); continue }
            if arg == "--" { flagsDone = true; continue }
            let parts = arg.split(separator: "=", maxSplits: 1).map(String.init)
            guard let flag = flags.first(where: { $0.name == parts[0] }) else {
                throw UsageError(message: "unknown flag \(parts[0])")
            }
            guard let placeholder = flag.value else {
                guard parts.count == 1 else { throw UsageError(message: "\(flag.name) takes no value") }
                parsed.values[flag.name, default: []].append("")
                continue
            }
            let value: String
            if parts.count == 2 {
                value = parts[1]
            } else {
                guard i < args.count else { throw UsageError(message: "\(flag.name) needs a value: \(flag.name) \(placeholder)") }
                value = args[i]
                i += 1
            }
            if parsed.values[flag.name] != nil && !flag.repeatable {
                throw UsageError(message: "\(flag.name) given twice: give it once")
            }
            parsed.values[flag.name, default: []].append(value)
        }
        return parsed
    }
}
