/// Builds a `RelayConfig`: defaults < config file < environment < flags.
///
/// - Config file (`--config FILE` or `HOMEBASE_RELAY_CONFIG`): `key = value` lines, `#` comments,
///   keys are the flag names without `--`.
/// - Environment: `HOMEBASE_RELAY_<KEY>`, the key in upper snake case (`HOMEBASE_RELAY_MAIL_TTL`).
/// - Flags: `--key value` or `--key=value`.
///
/// An unknown key or a bad value is an error naming the key, its source and the expected form.
public enum ConfigLoader {
    static let configKey = "config"
    static let environmentPrefix = "HOMEBASE_RELAY_"

    public static func load(arguments: [String], environment: [String: String]) throws(RelayError) -> RelayConfig {
        let flags = try parseFlags(arguments)
        var config = RelayConfig()
        let file = flags.last { $0.key == configKey }?.value ?? environment[environmentPrefix + "CONFIG"]
        if let file { try applyFile(file, to: &config) }
        for (name, value) in environment.sorted(by: { $0.key < $1.key }) where name.hasPrefix(environmentPrefix) {
            let key = String(name.dropFirst(environmentPrefix.count)).lowercased().map { $0 == "_" ? "-" : $0 }
            let k = String(key)
            if k == configKey { continue }
            try apply(k, value, source: "environment \(name)", to: &config)
        }
        for (key, value) in flags where key != configKey {
            try apply(key, value, source: "flag --\(key)", to: &config)
        }
        try config.validate()
        return config
    }

    /// `--key value` / `--key=value` pairs, in order.
    static func parseFlags(_ args: [String]) throws(RelayError) -> [(key: String, value: String)] {
        var out: [(key: String, value: String)] = []
        var i = 0
        while i < args.count {
            let a = args[i]
            guard a.hasPrefix("--"), a.count > 2 else { throw .unknownKey(key: a, source: "command line") }
            let body = a.dropFirst(2)
            if let eq = body.firstIndex(of: "=") {
                out.append((String(body[..<eq]), String(body[body.index(after: eq)...])))
                i += 1
            } else {
                let key = String(body)
                guard key == configKey || Settings.named(key) != nil else { throw .unknownKey(key: "--\(key)", source: "command line") }
                guard i + 1 < args.count else { throw .missingValue(key: key) }
                out.append((key, args[i + 1]))
                i += 2
            }
        }
        return out
    }

    static func applyFile(_ path: String, to config: inout RelayConfig) throws(RelayError) {
        let text: String
        do { text = try readTextFile(path) } catch { throw .unreadableFile(key: "config", path: path, reason: error.reason) }
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.prefix { $0 != "#" }.trimmed
            if line.isEmpty { continue }
            guard let eq = line.firstIndex(of: "=") else {
                throw .badFileLine(path: path, line: n + 1, reason: "expected `key = value`")
            }
            let key = String(line[..<eq].trimmed), value = String(line[line.index(after: eq)...].trimmed)
            if key == configKey { throw .badFileLine(path: path, line: n + 1, reason: "a config file cannot name another") }
            try apply(key, value, source: "\(path) line \(n + 1)", to: &config)
        }
    }

    static func apply(_ key: String, _ value: String, source: String, to config: inout RelayConfig) throws(RelayError) {
        guard let s = Settings.named(key) else { throw .unknownKey(key: key, source: source) }
        guard s.apply(&config, value) else { throw .badValue(key: key, value: value, source: source, expected: s.form) }
    }

    /// The settings list for `serve --help`, with defaults.
    public static func helpText() -> String {
        let d = RelayConfig()
        let width = (Settings.all.map(\.key.count).max() ?? 0) + 2
        var out = ""
        for s in Settings.all {
            let pad = String(repeating: " ", count: width - s.key.count)
            out += "  --\(s.key)\(pad)\(s.help) (default \(s.show(d)))\n"
        }
        return out
    }
}

extension StringProtocol {
    var trimmed: Substring {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\r" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s.removeLast() }
        return s
    }
}
