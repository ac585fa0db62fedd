import Synchronization

/// A SQLite store: one connection, safe to share between tasks and threads.
///
/// Opening checks before it writes: a file that is not a database or is damaged is
/// `.corrupt(path:detail:)`, another application's database is `.foreignDatabase`, a newer
/// schema is `.newerSchema`; none of them is ever reset, recreated or altered. Then the file
/// goes to WAL mode (verified) and the pending migrations run.
///
/// The parent directory must exist: creating it (and its mode) is the caller's decision.
/// Calls are synchronous and serialized by a lock; each one is short (a statement or a
/// transaction), so calling from async code blocks a thread only briefly. Use one `Database`
/// per file per process; several processes may share a file (WAL + `busyTimeout`).
public final class Database: @unchecked Sendable {
    /// The file, as given: it is what error messages show.
    public let path: String
    /// Guards `connection`, which is only touched inside `lock.withLock`.
    private let lock = Mutex(())
    private let connection: Connection

    public init(path: String, schema: Schema, options: DatabaseOptions = DatabaseOptions()) throws {
        self.path = path
        connection = try Connection(path: path, readOnly: options.readOnly, cacheLimit: options.statementCacheLimit)
        try connection.prepareForUse(schema: schema, options: options)
    }

    /// Runs one statement with `?` parameters bound in order; returns the number of rows changed.
    @discardableResult
    public func execute(_ sql: String, _ parameters: any SQLBindable...) throws -> Int {
        try execute(sql, parameters: parameters)
    }

    @discardableResult
    public func execute(_ sql: String, parameters: [any SQLBindable]) throws -> Int {
        let values = parameters.map(\.sqlValue)
        return try lock.withLock { _ in try connection.execute(sql, values) }
    }

    /// Runs one statement and returns all its rows.
    public func query(_ sql: String, _ parameters: any SQLBindable...) throws -> [Row] {
        try query(sql, parameters: parameters)
    }

    public func query(_ sql: String, parameters: [any SQLBindable]) throws -> [Row] {
        let values = parameters.map(\.sqlValue)
        return try lock.withLock { _ in try connection.query(sql, values) }
    }

    /// Runs `body` in one transaction (`BEGIN IMMEDIATE`), holding this database's lock: use
    /// the handle it is given, not `self` (the lock is not reentrant). A throw rolls back
    /// and is rethrown; a return commits.
    @discardableResult
    public func transaction<R: Sendable>(_ body: (Transaction) throws -> R) throws -> R {
        try lock.withLock { _ in
            try connection.transaction {
                let handle = Transaction(connection)
                defer { handle.end() }
                return try body(handle)
            }
        }
    }

    /// Closes the connection (also done on deinit). Later calls throw `.closed`.
    public func close() {
        lock.withLock { _ in connection.close() }
    }
}
