/// One setting of a program's key table: its key (the flag's name without `--`, the config
/// file's key, and in upper snake case after the program's prefix the environment variable),
/// what it does, the form its value takes, how to store a value and how to show the current one.
public struct ConfigKey<Config>: @unchecked Sendable {
    // @unchecked: the closures are pure functions of their arguments; tables are built at start.
    public let key: String
    public let help: String
    /// The accepted form, for bad-value messages ("expected ...").
    public let form: String
    /// Stores the parsed value; false when the text does not parse.
    public let apply: (inout Config, String) -> Bool
    /// The value in `config` as a setting would be written (`--help` shows the defaults' values).
    public let show: (Config) -> String

    public init(key: String, help: String, form: String,
                apply: @escaping (inout Config, String) -> Bool, show: @escaping (Config) -> String) {
        self.key = key; self.help = help; self.form = form; self.apply = apply; self.show = show
    }
}

/// A program's settings: every key once, where the environment variables start, the flags the
/// keys make, and their help with defaults.
public struct KeyTable<Config>: @unchecked Sendable {
    public let keys: [ConfigKey<Config>]
    /// `HOMEBASE_RELAY_`: `mail-ttl` is `HOMEBASE_RELAY_MAIL_TTL`. Nil: no environment layer.
    public let environmentPrefix: String?

    public init(_ keys: [ConfigKey<Config>], environmentPrefix: String?) {
        self.keys = keys
        self.environmentPrefix = environmentPrefix
    }

    public func named(_ key: String) -> ConfigKey<Config>? { keys.first { $0.key == key } }

    /// `mail-ttl` → `HOMEBASE_RELAY_MAIL_TTL` (nil without a prefix).
    public func environmentName(_ key: String) -> String? {
        environmentPrefix.map { $0 + String(key.uppercased().map { $0 == "-" ? "_" : $0 }) }
    }

    /// One `--KEY VALUE` flag a key, its help saying the default; a later one overrides an
    /// earlier one.
    public func flags(defaults: Config) -> [Flag] {
        keys.map { Flag("--" + $0.key, "VALUE", repeats: .lastWins, "\($0.help) (default \($0.show(defaults)))") }
    }

    /// Stores each assignment in order (so a later layer wins): an unknown key or a value that
    /// does not parse is a usage error naming the key, where it came from and the form.
    public func apply(_ assignments: [Assignment], to config: inout Config) throws(UsageError) {
        for a in assignments {
            guard let k = named(a.key) else { throw .unknownKey(key: a.key, source: a.source) }
            guard k.apply(&config, a.value) else {
                throw .badValue(key: a.key, value: a.value, source: a.source, expected: k.form)
            }
        }
    }

    /// The keys for `--help`, one line each with the value `defaults` holds.
    public func helpText(defaults: Config) -> String {
        let width = (keys.map(\.key.count).max() ?? 0) + 2
        var out = ""
        for k in keys {
            out += "  --\(k.key)\(String(repeating: " ", count: width - k.key.count))\(k.help) (default \(k.show(defaults)))\n"
        }
        return out
    }
}
