/// Every failure of the Storage module.
///
/// Messages name the database file and the operation, and carry SQLite's own message; they
/// never carry SQL text or bound values (a bound value may be a secret or a prompt).
public enum StorageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file could not be opened (missing, no permission, missing parent directory).
    case cannotOpen(path: String, detail: String)
    /// The file is not a SQLite database, or it is damaged. It is never reset or recreated:
    /// a person decides what to do with it.
    case corrupt(path: String, detail: String)
    /// A SQLite database of another application (another `application_id`, or none and not
    /// empty). It is refused and left untouched.
    case foreignDatabase(path: String, applicationID: Int32)
    /// The schema is newer than this program knows (a downgrade): refused, left untouched.
    case newerSchema(path: String, version: Int, known: Int)
    /// A read-only open found a schema older than this program's: it would need migrating.
    case olderSchema(path: String, version: Int, known: Int)
    /// `PRAGMA journal_mode=WAL` did not take (the file system may lack shared memory).
    case walUnavailable(path: String, mode: String)
    /// A migration step failed; the database stays at `version - 1`.
    case migrationFailed(path: String, version: Int, detail: String)
    /// Another connection held the lock longer than the busy timeout.
    case busy(path: String, operation: String)
    /// A constraint (UNIQUE, FOREIGN KEY, CHECK, NOT NULL) refused a write.
    case constraint(path: String, detail: String)
    /// A write on a database opened read-only.
    case readOnly(path: String)
    /// The database was closed.
    case closed(path: String)
    /// A call the API does not allow (wrong parameter count, several statements in one call,
    /// a transaction handle used after its closure returned).
    case misuse(operation: String, detail: String)
    /// A column read as a type it does not hold.
    case columnType(column: String, expected: String, found: String)
    /// Any other SQLite error.
    case sqlite(path: String, operation: String, code: Int32, message: String)

    public var description: String {
        switch self {
        case let .cannotOpen(path, detail):
            return "cannot open database \(path): \(detail)"
        case let .corrupt(path, detail):
            return "database \(path) is corrupt or not a database (\(detail)); it was left as it is"
        case let .foreignDatabase(path, id):
            return "\(path) is a SQLite database of another application (application_id \(id)); refusing to touch it"
        case let .newerSchema(path, version, known):
            return "database \(path) has schema version \(version), newer than this program's \(known): refusing to downgrade"
        case let .olderSchema(path, version, known):
            return "database \(path) has schema version \(version), older than this program's \(known): open it read-write once to migrate"
        case let .walUnavailable(path, mode):
            return "database \(path): WAL journal mode did not take (journal_mode is \(mode))"
        case let .migrationFailed(path, version, detail):
            return "database \(path): migration to schema version \(version) failed: \(detail)"
        case let .busy(path, operation):
            return "database \(path) is busy (\(operation)): another connection held the lock past the busy timeout"
        case let .constraint(path, detail):
            return "database \(path): constraint failed: \(detail)"
        case let .readOnly(path):
            return "database \(path) is open read-only"
        case let .closed(path):
            return "database \(path) is closed"
        case let .misuse(operation, detail):
            return "storage misuse in \(operation): \(detail)"
        case let .columnType(column, expected, found):
            return "column \(column) holds \(found), read as \(expected)"
        case let .sqlite(path, operation, code, message):
            return "database \(path): \(operation) failed: \(message) (sqlite code \(code))"
        }
    }
}
