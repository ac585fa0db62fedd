import CSQLite

/// One `sqlite3*` and its prepared-statement cache.
///
/// Not thread-safe: `Database` holds it behind a `Mutex`, and every method here runs under
/// that lock. Statements are stepped to completion before a call returns, so a cached
/// statement is never in use twice.
final class Connection {
    let path: String
    let readOnly: Bool
    private var handle: OpaquePointer?
    private var cache: [String: OpaquePointer] = [:]
    private let cacheLimit: Int
    /// Transaction nesting: 0 none, 1 the outer BEGIN, 2... savepoints.
    private(set) var depth = 0

    init(path: String, readOnly: Bool, cacheLimit: Int) throws {
        self.path = path
        self.readOnly = readOnly
        self.cacheLimit = max(1, cacheLimit)
        // NOMUTEX: our own Mutex serializes use. EXRESCODE: extended result codes everywhere.
        let mode = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        if !readOnly { PrivateFiles.prepareStore(path) }
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, mode | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_close_v2(db)
            throw StorageError.cannotOpen(path: path, detail: message)
        }
        handle = db
    }

    deinit { close() }

    func close() {
        for stmt in cache.values { sqlite3_finalize(stmt) }
        cache.removeAll()
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    func setBusyTimeout(_ timeout: Duration) throws {
        guard let handle else { throw StorageError.closed(path: path) }
        let ms = timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
        sqlite3_busy_timeout(handle, Int32(clamping: ms))
    }

    /// Runs one statement to completion (rows, if any, are dropped); returns the rows changed.
    @discardableResult
    func execute(_ sql: String, _ params: [SQLValue] = [], operation: String = "execute") throws -> Int {
        try withStatement(sql, params, operation) { stmt in
            while try step(stmt, operation) {}
            return Int(sqlite3_changes64(handle))
        }
    }

    func query(_ sql: String, _ params: [SQLValue] = [], operation: String = "query") throws -> [Row] {
        try withStatement(sql, params, operation) { stmt in
            let columns = Statement.columnNames(stmt)
            var rows: [Row] = []
            while try step(stmt, operation) {
                rows.append(Row(columns: columns, values: Statement.row(stmt)))
            }
            return rows
        }
    }

    /// The first column of the first row (for PRAGMAs and counts).
    func scalar(_ sql: String, operation: String) throws -> SQLValue {
        try query(sql, operation: operation).first?.values.first ?? .null
    }

    /// Several statements, no parameters: migration steps.
    func script(_ sql: String, operation: String) throws {
        guard let handle else { throw StorageError.closed(path: path) }
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        if rc != SQLITE_OK { throw error(rc, operation) }
    }

    /// The outer level is `BEGIN IMMEDIATE` (the write lock up front, so two writers never
    /// deadlock upgrading read locks; `DEFERRED` when read-only); inner levels are savepoints.
    /// Any throw rolls the level back and is rethrown unchanged.
    func transaction<R>(_ body: () throws -> R) throws -> R {
        guard handle != nil else { throw StorageError.closed(path: path) }
        depth += 1
        defer { depth -= 1 }
        let savepoint = "homebase_sp\(depth)"
        if depth == 1 {
            try execute(readOnly ? "BEGIN DEFERRED" : "BEGIN IMMEDIATE", operation: "begin")
        } else {
            try execute("SAVEPOINT \(savepoint)", operation: "savepoint")
        }
        do {
            let result = try body()
            if depth == 1 {
                try execute("COMMIT", operation: "commit")
            } else {
                try execute("RELEASE \(savepoint)", operation: "release savepoint")
            }
            return result
        } catch {
            rollback(savepoint)
            throw error
        }
    }

    /// Best effort: SQLite may already have rolled back by itself (an I/O or full-disk error).
    private func rollback(_ savepoint: String) {
        guard let handle, sqlite3_get_autocommit(handle) == 0 else { return }
        if depth == 1 {
            _ = try? execute("ROLLBACK", operation: "rollback")
        } else {
            _ = try? execute("ROLLBACK TO \(savepoint)", operation: "rollback savepoint")
            _ = try? execute("RELEASE \(savepoint)", operation: "release savepoint")
        }
    }

    private func withStatement<R>(
        _ sql: String, _ params: [SQLValue], _ operation: String, _ body: (OpaquePointer) throws -> R
    ) throws -> R {
        let stmt = try prepared(sql, operation)
        defer {
            sqlite3_reset(stmt)
            sqlite3_clear_bindings(stmt)
        }
        let (rc, detail) = Statement.bind(stmt, params)
        if let detail { throw StorageError.misuse(operation: operation, detail: detail) }
        if rc != SQLITE_OK { throw error(rc, "\(operation) (bind)") }
        return try body(stmt)
    }

    private func step(_ stmt: OpaquePointer, _ operation: String) throws -> Bool {
        switch sqlite3_step(stmt) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let rc: throw error(rc, operation)
        }
    }

    private func prepared(_ sql: String, _ operation: String) throws -> OpaquePointer {
        guard let handle else { throw StorageError.closed(path: path) }
        if let stmt = cache[sql] { return stmt }
        if cache.count >= cacheLimit {
            for stmt in cache.values { sqlite3_finalize(stmt) }
            cache.removeAll()
        }
        var stmt: OpaquePointer?
        var extra = false
        let rc = sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            let rc = sqlite3_prepare_v3(handle, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, &tail)
            // A second statement in the string would be silently ignored: refuse it instead.
            if rc == SQLITE_OK, let tail, tail.pointee != 0 {
                var next: OpaquePointer?
                sqlite3_prepare_v2(handle, tail, -1, &next, nil)
                extra = next != nil
                sqlite3_finalize(next)
            }
            return rc
        }
        if rc != SQLITE_OK { throw error(rc, "\(operation) (prepare)") }
        guard let stmt, !extra else {
            sqlite3_finalize(stmt)
            throw StorageError.misuse(operation: operation, detail: "exactly one SQL statement per call")
        }
        cache[sql] = stmt
        return stmt
    }

    /// Maps a result code to the module's error, with SQLite's message (never the SQL).
    func error(_ rc: Int32, _ operation: String) -> StorageError {
        let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
        switch rc & 0xff {
        case SQLITE_CORRUPT, SQLITE_NOTADB: return .corrupt(path: path, detail: "\(operation): \(message)")
        case SQLITE_BUSY, SQLITE_LOCKED: return .busy(path: path, operation: operation)
        case SQLITE_CONSTRAINT: return .constraint(path: path, detail: message)
        case SQLITE_CANTOPEN: return .cannotOpen(path: path, detail: message)
        case SQLITE_READONLY where rc == SQLITE_READONLY: return .readOnly(path: path)
        default: return .sqlite(path: path, operation: operation, code: rc, message: message)
        }
    }
}
