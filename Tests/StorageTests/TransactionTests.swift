import TestKit
import Testing
@testable import Storage

struct Boom: Error {}

@Suite struct TransactionTests {
    private func open(_ dir: TempDir) throws -> Database {
        try Database(path: dir.path("a.db"), schema: schema())
    }

    private func names(_ db: Database) throws -> [String] {
        try db.query("SELECT name FROM item ORDER BY id").map { try $0.get(0) }
    }

    @Test func commitAndRollback() throws {
        let dir = try TempDir("homebase-storage")
        defer { dir.cleanup() }
        let db = try open(dir)
        let count = try db.transaction { tx in
            try tx.execute("INSERT INTO item(name) VALUES (?)", "a")
            return try tx.query("SELECT count(*) FROM item")[0].get(0, as: Int.self)
        }
        #expect(count == 1)
        #expect(throws: Boom.self) {
            try db.transaction { tx in
                try tx.execute("INSERT INTO item(name) VALUES (?)", "b")
                throw Boom()
            }
        }
        #expect(try names(db) == ["a"])
        // The connection is usable after a rollback, and a new transaction can start.
        try db.transaction { try $0.execute("INSERT INTO item(name) VALUES ('c')") }
        #expect(try names(db) == ["a", "c"])
    }

    @Test func nestedSavepointsRollBackOnlyTheirLevel() throws {
        let dir = try TempDir("homebase-storage")
        defer { dir.cleanup() }
        let db = try open(dir)
        try db.transaction { tx in
            try tx.execute("INSERT INTO item(name) VALUES ('outer')")
            try tx.transaction { inner in
                try inner.execute("INSERT INTO item(name) VALUES ('kept')")
                #expect(throws: Boom.self) {
                    try inner.transaction { innermost in
                        try innermost.execute("INSERT INTO item(name) VALUES ('dropped')")
                        throw Boom()
                    }
                }
            }
            #expect(throws: Boom.self) {
                try tx.transaction { inner in
                    try inner.execute("INSERT INTO item(name) VALUES ('dropped too')")
                    throw Boom()
                }
            }
        }
        #expect(try names(db) == ["outer", "kept"])
    }

    @Test func outerRollbackUndoesReleasedSavepoints() throws {
        let dir = try TempDir("homebase-storage")
        defer { dir.cleanup() }
        let db = try open(dir)
        #expect(throws: Boom.self) {
            try db.transaction { tx in
                try tx.transaction { try $0.execute("INSERT INTO item(name) VALUES ('inner')") }
                throw Boom()
            }
        }
        #expect(try names(db).isEmpty)
    }

    @Test func constraintErrorRollsBackAndHidesValues() throws {
        let dir = try TempDir("homebase-storage")
        defer { dir.cleanup() }
        let db = try open(dir)
        try db.execute("CREATE UNIQUE INDEX item_name ON item(name)")
        try db.execute("INSERT INTO item(name) VALUES (?)", "secret-value-1234")
        let error = storageError {
            try db.transaction { tx in
                try tx.execute("INSERT INTO item(name) VALUES ('x')")
                try tx.execute("INSERT INTO item(name) VALUES (?)", "secret-value-1234")
            }
        }
        guard case let .constraint(path, _) = error else {
            Issue.record("expected constraint, got \(String(describing: error))")
            return
        }
        #expect(path == dir.path("a.db"))
        #expect(error?.description.contains("secret-value") == false)
        #expect(error?.description.contains("INSERT") == false)
        #expect(try names(db) == ["secret-value-1234"])
    }

    @Test func handleUsedAfterItsTransactionIsMisuse() throws {
        let dir = try TempDir("homebase-storage")
        defer { dir.cleanup() }
        let db = try open(dir)
        var kept: Transaction?
        try db.transaction { kept = $0 }
        guard case .misuse = storageError({ try kept?.execute("INSERT INTO item(name) VALUES ('late')") }) else {
            Issue.record("a stale handle must throw misuse")
            return
        }
        #expect(try names(db).isEmpty)
    }

    @Test func busyWriterGetsBusyAfterTimeout() throws {
        let dir = try TempDir("homebase-storage")
        defer { dir.cleanup() }
        let path = dir.path("a.db")
        let a = try Database(path: path, schema: schema())
        let b = try Database(path: path, schema: schema(), options: fastOptions(busy: .milliseconds(10)))
        try a.transaction { tx in
            // BEGIN IMMEDIATE: the write lock is held from the start, before any write.
            #expect(storageError { try b.execute("INSERT INTO item(name) VALUES ('b')") } == .busy(path: path, operation: "execute"))
            try tx.execute("INSERT INTO item(name) VALUES ('a')")
            #expect(storageError { try b.execute("INSERT INTO item(name) VALUES ('b')") } == .busy(path: path, operation: "execute"))
            // WAL: a reader is not blocked by the writer and sees the last commit.
            #expect(try b.query("SELECT count(*) FROM item")[0].get(0) == 0)
        }
        try b.execute("INSERT INTO item(name) VALUES ('b')")
        #expect(try names(a) == ["a", "b"])
    }
}
