import CommandLineKit

/// Builds a `RelayConfig`: defaults < config file < environment < flags (the command-line kit's
/// layers over the relay's key table, `Settings`).
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

    /// The flags of `serve`: one a key, and `--config`.
    package static var flags: [Flag] { Settings.table.flags(defaults: RelayConfig()) + [Flag("--" + configKey, "FILE", "config file of `key = value` lines")] }

    public static func load(arguments: [String], environment: [String: String]) throws(RelayError) -> RelayConfig {
        do { return try load(try ParsedArguments.parse(arguments, flags: flags), environment: environment) }
        catch let e as UsageError { throw relayError(e) }
        catch let e as RelayError { throw e }
        catch { throw .inconsistent("\(error)") }
    }

    package static func load(_ parsed: ParsedArguments, environment: [String: String]) throws -> RelayConfig {
        if let word = parsed.positionals.first { throw RelayError.unknownKey(key: word, source: "command line") }
        let table = Settings.table
        var config = RelayConfig()
        var file: [Assignment] = []
        if let path = parsed.value("--" + configKey) ?? environment[environmentPrefix + "CONFIG"] {
            guard let lines = try ConfigLayers.readFile(path) else {
                throw RelayError.unreadableFile(key: configKey, path: path, reason: "no such file")
            }
            if let line = lines.first(where: { $0.key == configKey }) {
                throw RelayError.badFileLine(path: path, line: line.line ?? 0, reason: "a config file cannot name another")
            }
            file = lines
        }
        let env = ConfigLayers.environment(environment, prefix: environmentPrefix, skipping: [configKey])
        let flags = ConfigLayers.flags(parsed, keys: Set(table.keys.map(\.key)))
        try table.apply(ConfigLayers.layered(file: file, environment: env, flags: flags), to: &config)
        try config.validate()
        return config
    }

    /// The kit's usage errors as the relay's (its one error enum; exit 2 for each).
    package static func relayError(_ e: UsageError) -> RelayError {
        switch e {
        case let .badValue(key, value, source, expected): .badValue(key: key, value: value, source: source, expected: expected)
        case let .unknownKey(key, source): .unknownKey(key: key, source: source)
        case let .unknownFlag(flag): .unknownKey(key: flag, source: "command line")
        case let .needsValue(flag, _): .missingValue(key: String(flag.dropFirst(2)))
        case let .badLine(path, line, reason): .badFileLine(path: path, line: line, reason: reason)
        case let .unreadableFile(path, reason): .unreadableFile(key: configKey, path: path, reason: reason)
        case .takesNoValue, .givenTwice, .unknownCommand, .invalid: .inconsistent(e.description)
        }
    }

    /// The settings list for `serve --help`, with defaults.
    public static func helpText() -> String { Settings.table.helpText(defaults: RelayConfig()) }
}

extension StringProtocol {
    var trimmed: Substring {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\r" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s.removeLast() }
        return s
    }
}
