/// A stored row this version cannot read: a device record an older version accepted (an HPKE
/// key of small order, control characters in its name). Reads skip it so one such row cannot
/// stop the Homebase; it stays in the file and is reported (log and `homebase status`), never
/// silently deleted.
public struct SkippedRow: Codable, Sendable, Equatable {
    /// "devices" or "grants" (homebase.sqlite3), "joins" (sharing.sqlite3).
    public var table: String
    /// Its primary key, hex (a signing key or a grant id).
    public var key: String
    public var reason: String

    /// The line the log and `homebase status` show.
    public var line: String { "\(table) row \(key): \(reason) (left in place; this version cannot read it)" }
}

extension HostStore {
    /// The rows `devices()` and `grants()` skip.
    public func skippedRows() throws(HomebaseError) -> [SkippedRow] {
        try readDevices().skipped + (try grantRows("")).skipped
    }
}

extension HomebaseAgent {
    /// At start: a log line for each row the stores hold that this version cannot read.
    func reportSkippedRows() {
        let rows = ((try? store.skippedRows()) ?? []) + ((try? sharing.skippedRows()) ?? [])
        for r in rows { log("store: skipped \(r.line)") }
    }
}
