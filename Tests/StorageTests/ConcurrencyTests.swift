import TestKit
import Testing
@testable import Storage

@Suite struct ConcurrencyTests {
    private let counterSchema = schema(["CREATE TABLE counter(n INTEGER NOT NULL); INSERT INTO counter VALUES (0); CREATE TABLE event(task INTEGER, i INTEGER);"])

    /// Read-modify-write in a transaction: a lost update would show in the final count.
    private static func bump(_ db: Database, task: Int, i: Int) throws {
        try db.transaction { tx in
            let n = try tx.query("SELECT n FROM counter")[0].get(0, as: Int64.self)
            try tx.execute("UPDATE counter SET n = ?", n + 1)
            try tx.execute("INSERT INTO event VALUES (?, ?)", task, i)
        }
    }

    @Test func manyTasksShareOneDatabase() async throws {
        let dir = try TempDir("homebase-storage")
        defer { dir.cleanup() }
        let db = try Database(path: dir.path("a.db"), schema: counterSchema)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for i in 0..<50 { try Self.bump(db, task: task, i: i) }
                }
            }
            try await group.waitForAll()
        }
        #expect(try db.query("SELECT n FROM counter")[0].get(0) == 400)
        #expect(try db.query("SELECT count(DISTINCT task * 1000 + i) FROM event")[0].get(0) == 400)
    }

    @Test func twoConnectionsOnOneFile() async throws {
        let dir = try TempDir("homebase-storage")
        defer { dir.cleanup() }
        let path = dir.path("a.db")
        let a = try Database(path: path, schema: counterSchema, options: fastOptions())
        let b = try Database(path: path, schema: counterSchema, options: fastOptions())
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<6 {
                let db = task.isMultiple(of: 2) ? a : b
                group.addTask {
                    for i in 0..<30 { try Self.bump(db, task: task, i: i) }
                }
            }
            try await group.waitForAll()
        }
        #expect(try a.query("SELECT n FROM counter")[0].get(0) == 180)
        #expect(try b.query("SELECT count(*) FROM event")[0].get(0) == 180)
    }
}

@Suite struct ConcurrentOpenTests {
    /// Several connections opening one new file at once apply each migration exactly once.
    @Test func concurrentOpensMigrateOnce() async throws {
        let dir = try TempDir("homebase-storage")
        defer { dir.cleanup() }
        let path = dir.path("a.db")
        let dbs = try await withThrowingTaskGroup(of: Database.self) { group in
            for _ in 0..<4 {
                group.addTask { try Database(path: path, schema: schema(), options: fastOptions()) }
            }
            var opened: [Database] = []
            for try await db in group { opened.append(db) }
            return opened
        }
        #expect(dbs.count == 4)
        #expect(try dbs[0].query("SELECT step FROM log ORDER BY rowid").map { try $0.get(0, as: Int.self) } == [1, 2, 3])
    }
}
