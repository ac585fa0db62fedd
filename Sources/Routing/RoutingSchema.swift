import Storage

/// The guest's routing store: settings, own-Homebase adverts, joined Homebases, one SQLite file.
///
/// Append-only migrations (see `Storage.Schema`). Keys are 32-byte BLOBs; sequence numbers are
/// u64 stored by bit pattern in an INTEGER and compared in Swift, never in SQL.
public enum RoutingSchema {
    /// "HBRT": this store's `application_id`.
    public static let applicationID: Int32 = 0x4842_5254

    public static let schema = Schema(applicationID: applicationID, migrations: [
        """
        CREATE TABLE settings(
            name TEXT PRIMARY KEY NOT NULL,
            value TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE own_adverts(
            host_key BLOB PRIMARY KEY NOT NULL CHECK (length(host_key) = 32),
            sequence INTEGER NOT NULL,
            receipt_ms INTEGER NOT NULL,
            host_timestamp_ms INTEGER NOT NULL,
            advert BLOB NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE joined_homebases(
            host_key BLOB PRIMARY KEY NOT NULL CHECK (length(host_key) = 32),
            hpke_key BLOB NOT NULL CHECK (length(hpke_key) = 32),
            relay_url TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('invited', 'joined', 'revoked')),
            last_heard_ms INTEGER,
            advert_sequence INTEGER
        ) WITHOUT ROWID;
        CREATE TABLE joined_models(
            host_key BLOB NOT NULL REFERENCES joined_homebases(host_key) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            tag TEXT NOT NULL,
            PRIMARY KEY (host_key, position)
        ) WITHOUT ROWID;
        """,
        // #23: each joined model's advertised capability bits (NULL: not advertised yet), and
        // whether the grant allows tools (0 until the host says so in `grant-terms`).
        """
        ALTER TABLE joined_models ADD COLUMN capabilities INTEGER;
        ALTER TABLE joined_homebases ADD COLUMN tools_granted INTEGER NOT NULL DEFAULT 0;
        """,
    ])

    /// Opens (creating and migrating) the routing store at `path`; the directory must exist.
    public static func open(path: String, options: DatabaseOptions = DatabaseOptions()) throws(RoutingError) -> Database {
        try storing { try Database(path: path, schema: schema, options: options) }
    }
}
