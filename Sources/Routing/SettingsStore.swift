import Storage

/// The routing settings in SQLite, one row per set setting.
///
/// `set` validates user input (`SettingName.validate`); `setRaw` stores anything (tests, and
/// migrations of old values). Reads never interpret: `Router.resolve()` does, at every call.
public final class SettingsStore: SettingsSource, Sendable {
    private let db: Database

    public init(database: Database) { db = database }

    /// The stored value, nil when never set.
    public func get(_ name: SettingName) throws(RoutingError) -> String? {
        try storing {
            try db.query("SELECT value FROM settings WHERE name = ?", name.rawValue).first?.get(0, as: String.self)
        }
    }

    /// By name, for `guest settings get NAME`: unknown names are `.unknownSetting`.
    public func get(named name: String) throws(RoutingError) -> String? {
        try get(Self.setting(named: name))
    }

    /// Validates `value` and stores its canonical form, which is returned.
    @discardableResult
    public func set(_ name: SettingName, _ value: String) throws(RoutingError) -> String {
        let canonical = try name.validate(value)
        try setRaw(name, canonical)
        return canonical
    }

    /// By name, for `guest settings set NAME VALUE`.
    @discardableResult
    public func set(named name: String, _ value: String) throws(RoutingError) -> String {
        try set(Self.setting(named: name), value)
    }

    /// Stores `value` as it is, unvalidated.
    public func setRaw(_ name: SettingName, _ value: String) throws(RoutingError) {
        try storing {
            try db.execute("INSERT INTO settings(name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value",
                           name.rawValue, value)
        }
    }

    /// Back to "never set".
    public func unset(_ name: SettingName) throws(RoutingError) {
        _ = try storing { try db.execute("DELETE FROM settings WHERE name = ?", name.rawValue) }
    }

    /// Every routing setting, set or not, as stored. Rows of unknown names (a newer version's)
    /// are ignored, and a value that is not text reads as unset.
    public func routingSettings() throws -> RoutingSettings {
        let rows = try storing { try db.query("SELECT name, value FROM settings") }
        var settings = RoutingSettings()
        for row in rows {
            guard let raw = try? row.get(0, as: String.self), let name = SettingName(rawValue: raw),
                  let value = try? row.get(1, as: String.self) else { continue }
            settings[name] = value
        }
        return settings
    }

    static func setting(named name: String) throws(RoutingError) -> SettingName {
        guard let setting = SettingName(rawValue: name.trimmingWhitespace().lowercased()) else {
            throw .unknownSetting
        }
        return setting
    }
}
