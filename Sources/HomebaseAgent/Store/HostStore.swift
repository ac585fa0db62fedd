import Foundation
import Storage

/// The Homebase's durable facts, in one SQLite file (`homebase.sqlite3` in the data directory):
/// the roster and its devices, the verified runtimes, the advert sequence, the grants.
///
/// Several processes share it (the running agent and CLI commands such as `devices add`): every
/// write is one transaction, and the agent re-reads what the CLI may change (`snapshot`).
public final class HostStore: Sendable {
    /// "HBHS": tells this store from the relay's mailbox and the guest's stores.
    static let applicationID: Int32 = 0x4842_4853
    static let schema = Schema(applicationID: applicationID, migrations: [
        """
        CREATE TABLE roster(id INTEGER PRIMARY KEY CHECK (id = 1), account_key BLOB NOT NULL,
            version INTEGER NOT NULL, encoded BLOB NOT NULL);
        CREATE TABLE devices(signing_key BLOB PRIMARY KEY, record BLOB NOT NULL, added_ms INTEGER NOT NULL);
        CREATE TABLE runtimes(url TEXT PRIMARY KEY, kind TEXT NOT NULL, version TEXT,
            available INTEGER NOT NULL, models TEXT NOT NULL, added_ms INTEGER NOT NULL,
            verified_ms INTEGER NOT NULL, checked_ms INTEGER NOT NULL, last_error TEXT);
        CREATE TABLE advert(id INTEGER PRIMARY KEY CHECK (id = 1), sequence INTEGER NOT NULL,
            sent_ms INTEGER NOT NULL, model_count INTEGER NOT NULL);
        CREATE TABLE grants(grant_id BLOB PRIMARY KEY, grantee_key BLOB NOT NULL, grantee_record BLOB NOT NULL,
            models TEXT NOT NULL, rate_per_minute INTEGER NOT NULL, expires_ms INTEGER NOT NULL,
            revoked INTEGER NOT NULL DEFAULT 0, created_ms INTEGER NOT NULL);
        CREATE INDEX grants_by_grantee ON grants(grantee_key);
        """,
        // The own account's conversation replicas survive a restart (grantees' cache does not).
        """
        CREATE TABLE replicas(conversation_id BLOB PRIMARY KEY, messages TEXT NOT NULL, used_ms INTEGER NOT NULL);
        CREATE INDEX replicas_by_use ON replicas(used_ms);
        """,
        // #23: a grant may allow requests that carry tools (`homebase share --tools`).
        """
        ALTER TABLE grants ADD COLUMN tools INTEGER NOT NULL DEFAULT 0;
        """,
        // #21: token budgets per grant, and usage per requesting device, model and UTC day
        // (counts only: never prompt text).
        """
        ALTER TABLE grants ADD COLUMN budget TEXT;
        CREATE TABLE usage(requester BLOB NOT NULL, own INTEGER NOT NULL, model TEXT NOT NULL, day TEXT NOT NULL,
            requests INTEGER NOT NULL, tokens_in INTEGER NOT NULL, tokens_out INTEGER NOT NULL,
            PRIMARY KEY(requester, model, day));
        CREATE INDEX usage_by_day ON usage(day);
        """,
    ])

    let db: Database
    public var path: String { db.path }

    /// Opens (creating and migrating) the store at `path`; its directory must exist.
    public init(path: String, readOnly: Bool = false) throws(HomebaseError) {
        do {
            db = try Database(path: path, schema: Self.schema, options: DatabaseOptions(readOnly: readOnly))
        } catch {
            throw .storage("\(error)")
        }
    }

    public func close() { db.close() }

    @discardableResult
    /// Runs `body`, turning a Storage failure into `.storage`.
    func storing<T>(_ body: () throws -> T) throws(HomebaseError) -> T {
        do { return try body() } catch let e as HomebaseError { throw e } catch { throw .storage("\(error)") }
    }
}

/// JSON helpers for the columns that hold small lists.
enum ColumnJSON {
    static func encode<T: Encodable>(_ value: T) -> String {
        (try? JSONEncoder().encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }
    static func decode<T: Decodable>(_ type: T.Type, _ text: String) -> T? {
        try? JSONDecoder().decode(type, from: Data(text.utf8))
    }
}
