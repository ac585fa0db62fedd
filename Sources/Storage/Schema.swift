/// What a store is: its SQLite `application_id` and its ordered migrations.
///
/// `migrations[i]` takes the schema from version `i` to `i + 1`; `PRAGMA user_version` holds
/// the version. Append only: never edit or reorder a step that has shipped. A step may hold
/// several statements. Each step runs in its own `BEGIN IMMEDIATE` transaction with foreign
/// keys on (so SQLite's "12-step" table rebuild with foreign keys off cannot be a step).
public struct Schema: Sendable {
    /// Distinguishes our stores from each other and from foreign SQLite files. Nonzero.
    public let applicationID: Int32
    public let migrations: [String]

    public init(applicationID: Int32, migrations: [String]) {
        precondition(applicationID != 0, "application_id 0 means 'none' to SQLite")
        self.applicationID = applicationID
        self.migrations = migrations
    }

    /// The schema version this code knows: the number of migrations.
    public var version: Int { migrations.count }
}

/// How a database is opened. Every limit is here, so tests can use small ones.
public struct DatabaseOptions: Sendable {
    /// `PRAGMA synchronous` in WAL mode.
    public enum Synchronous: String, Sendable {
        /// Syncs the WAL only at checkpoints: a committed transaction survives a crash of the
        /// process (the WAL is in the OS cache) but the last ones may roll back after a power
        /// loss or an OS crash. The database is never corrupted either way. Our stores can
        /// lose their last seconds (mail is re-sent until acknowledged), so this is the default.
        case normal = "NORMAL"
        /// Syncs the WAL at every commit: durable against power loss, slower writes.
        case full = "FULL"
    }

    /// Open read-only (for `status` commands): no migrations, no WAL switch, writes fail.
    /// The schema must then be exactly the version this code knows.
    public var readOnly: Bool
    /// How long a statement waits for another connection's lock before `StorageError.busy`.
    public var busyTimeout: Duration
    public var synchronous: Synchronous
    /// Prepared statements kept per connection; when full, the cache is emptied and refills.
    public var statementCacheLimit: Int
    /// Runs `PRAGMA quick_check` at open (O(size of the file)); a failure is `.corrupt`.
    public var quickCheckOnOpen: Bool

    public init(
        readOnly: Bool = false,
        busyTimeout: Duration = .seconds(5),
        synchronous: Synchronous = .normal,
        statementCacheLimit: Int = 64,
        quickCheckOnOpen: Bool = true
    ) {
        self.readOnly = readOnly
        self.busyTimeout = busyTimeout
        self.synchronous = synchronous
        self.statementCacheLimit = statementCacheLimit
        self.quickCheckOnOpen = quickCheckOnOpen
    }
}
