import Foundation
import Testing
@testable import Storage

let testAppID: Int32 = 0x4842_5354  // "HBST"
let otherAppID: Int32 = 0x4842_5258  // "HBRX"

/// Three steps, each depending on the one before, each logging its number.
let threeSteps = [
    "CREATE TABLE log(step INTEGER NOT NULL); INSERT INTO log VALUES (1);",
    "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL); INSERT INTO log VALUES (2);",
    "ALTER TABLE item ADD COLUMN data BLOB; INSERT INTO log VALUES (3);",
]

func schema(_ steps: [String] = threeSteps, id: Int32 = testAppID) -> Schema {
    Schema(applicationID: id, migrations: steps)
}

/// Options for tests: short busy timeout so a lock conflict fails fast.
func fastOptions(readOnly: Bool = false, busy: Duration = .seconds(10)) -> DatabaseOptions {
    DatabaseOptions(readOnly: readOnly, busyTimeout: busy)
}

/// The StorageError `body` throws, or nil if it throws nothing or something else.
func storageError(_ body: () throws -> Void) -> StorageError? {
    do {
        try body()
        return nil
    } catch let e as StorageError {
        return e
    } catch {
        return nil
    }
}

func bytes(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
}

/// A database of "another application": tables, but no application_id.
func makeForeignDatabase(_ path: String) throws {
    let db = try Database(path: path, schema: Schema(applicationID: otherAppID, migrations: ["CREATE TABLE t(x);"]))
    try db.execute("PRAGMA application_id=0")
    try db.execute("PRAGMA user_version=0")
    try db.execute("PRAGMA journal_mode=DELETE")  // as most applications leave their files
    db.close()
}

/// One of our stores, of another kind (another application_id), in rollback-journal mode.
func makeOtherStore(_ path: String) throws {
    let db = try Database(path: path, schema: schema(id: otherAppID))
    try db.execute("PRAGMA journal_mode=DELETE")
    db.close()
}

/// A closed database of several pages (WAL checkpointed into the file by the close).
func makeFilledDatabase(_ path: String, rows: Int = 200) throws {
    let db = try Database(path: path, schema: schema())
    try db.transaction { tx in
        for i in 0..<rows {
            try tx.execute("INSERT INTO item(name, data) VALUES (?, ?)", "item \(i)", [UInt8](repeating: UInt8(i & 0xff), count: 100))
        }
    }
    db.close()
}
