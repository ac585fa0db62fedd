/// The open sequence: read and check before anything writes to the file.
///
/// Order matters: a garbage, damaged, foreign or newer file must be refused while nothing
/// has been written to it yet, so WAL (which rewrites the header) and migrations come last.
extension Connection {
    func prepareForUse(schema: Schema, options: DatabaseOptions) throws {
        try setBusyTimeout(options.busyTimeout)
        // Connection-local, no write. Off by default in SQLite; our schemas rely on it.
        try execute("PRAGMA foreign_keys=ON", operation: "enable foreign keys")
        guard try scalar("PRAGMA foreign_keys", operation: "enable foreign keys") == .integer(1) else {
            throw StorageError.sqlite(path: path, operation: "enable foreign keys", code: 0, message: "did not take")
        }

        let header = try inspect()
        let unclaimedEmpty = header.applicationID == 0 && header.version == 0 && header.objects == 0
        if header.applicationID != schema.applicationID && !unclaimedEmpty {
            throw StorageError.foreignDatabase(path: path, applicationID: header.applicationID)
        }
        if header.version > schema.version {
            throw StorageError.newerSchema(path: path, version: header.version, known: schema.version)
        }
        if options.quickCheckOnOpen { try quickCheck() }

        if readOnly {
            if header.version < schema.version || unclaimedEmpty {
                throw StorageError.olderSchema(path: path, version: header.version, known: schema.version)
            }
            return
        }
        let mode = try scalar("PRAGMA journal_mode=WAL", operation: "set WAL")
        guard case let .text(name) = mode, name.lowercased() == "wal" else {
            throw StorageError.walUnavailable(path: path, mode: String(describing: mode))
        }
        try execute("PRAGMA synchronous=\(options.synchronous.rawValue)", operation: "set synchronous")
        try migrate(schema)
    }

    private func inspect() throws -> (applicationID: Int32, version: Int, objects: Int) {
        // The first read of the file: "file is not a database" or a damaged header fails here.
        let id = try scalar("PRAGMA application_id", operation: "read application_id")
        let version = try scalar("PRAGMA user_version", operation: "read user_version")
        let objects = try scalar("SELECT count(*) FROM sqlite_schema", operation: "read schema")
        guard case let .integer(i) = id, case let .integer(v) = version, case let .integer(n) = objects else {
            throw StorageError.corrupt(path: path, detail: "unreadable header")
        }
        return (Int32(truncatingIfNeeded: i), Int(v), Int(n))
    }

    private func quickCheck() throws {
        // Up to 3 findings: enough to tell a person what is wrong, not a page dump.
        let rows = try query("PRAGMA quick_check(3)", operation: "quick_check")
        let findings = rows.compactMap { row -> String? in
            if case let .text(s) = row[0] { return s }
            return nil
        }
        if findings != ["ok"] {
            throw StorageError.corrupt(path: path, detail: "quick_check: " + findings.joined(separator: "; "))
        }
    }

    /// One transaction per step; the version is re-read inside each, so two processes opening
    /// the same new file at once apply every step exactly once.
    private func migrate(_ schema: Schema) throws {
        var finished = false
        while !finished {
            finished = try transaction {
                guard case let .integer(raw) = try scalar("PRAGMA user_version", operation: "read user_version") else {
                    throw StorageError.corrupt(path: path, detail: "unreadable user_version")
                }
                let version = Int(raw)
                if version > schema.version {
                    throw StorageError.newerSchema(path: path, version: version, known: schema.version)
                }
                if try scalar("PRAGMA application_id", operation: "read application_id") != .integer(Int64(schema.applicationID)) {
                    try execute("PRAGMA application_id=\(schema.applicationID)", operation: "set application_id")
                }
                if version == schema.version { return true }
                do {
                    try script(schema.migrations[version], operation: "migration \(version + 1)")
                } catch let StorageError.sqlite(_, _, _, message) {
                    throw StorageError.migrationFailed(path: path, version: version + 1, detail: message)
                } catch let StorageError.constraint(_, detail) {
                    throw StorageError.migrationFailed(path: path, version: version + 1, detail: detail)
                }
                try execute("PRAGMA user_version=\(version + 1)", operation: "set user_version")
                return false
            }
        }
    }
}
