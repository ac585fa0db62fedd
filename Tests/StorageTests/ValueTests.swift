import Foundation
import TestKit
import Testing
@testable import Storage

@Suite struct ValueTests {
    private func open(_ dir: TempDir) throws -> Database {
        try Database(path: dir.path("a.db"), schema: schema(["CREATE TABLE v(id INTEGER PRIMARY KEY, x);"]))
    }

    private func roundTrip(_ db: Database, _ value: any SQLBindable) throws -> SQLValue {
        try db.execute("DELETE FROM v")
        try db.execute("INSERT INTO v(id, x) VALUES (1, ?)", value)
        return try db.query("SELECT x FROM v WHERE id = 1")[0][0]
    }

    @Test func blobsRoundTrip() throws {
        let dir = try TempDir("homebase-storage")
        defer { dir.cleanup() }
        let db = try open(dir)
        let everyByte = (0...255).map { UInt8($0) }
        let large = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        for blob in [[], [0], everyByte, large] as [[UInt8]] {
            #expect(try roundTrip(db, blob) == .blob(blob))
        }
        let data = Data([0, 0xff, 0x80])
        try db.execute("DELETE FROM v")
        try db.execute("INSERT INTO v(id, x) VALUES (1, ?)", data)
        #expect(try db.query("SELECT x FROM v")[0].get(0, as: Data.self) == data)
        #expect(try db.query("SELECT typeof(x) FROM v")[0].get(0) == "blob")
    }

    @Test func emptyBlobAndEmptyTextAreNotNull() throws {
        let dir = try TempDir("homebase-storage")
        defer { dir.cleanup() }
        let db = try open(dir)
        #expect(try roundTrip(db, [UInt8]()) == .blob([]))
        #expect(try db.query("SELECT x IS NULL FROM v")[0].get(0) == false)
        #expect(try roundTrip(db, "") == .text(""))
        #expect(try db.query("SELECT x IS NULL FROM v")[0].get(0) == false)
    }

    @Test func scalarsRoundTrip() throws {
        let dir = try TempDir("homebase-storage")
        defer { dir.cleanup() }
        let db = try open(dir)
        #expect(try roundTrip(db, Int64.min) == .integer(.min))
        #expect(try roundTrip(db, Int64.max) == .integer(.max))
        #expect(try roundTrip(db, 1.5) == .real(1.5))
        #expect(try roundTrip(db, true) == .integer(1))
        #expect(try roundTrip(db, "héllo\u{0}wörld 🙂") == .text("héllo\u{0}wörld 🙂"))
        #expect(try roundTrip(db, String?.none) == .null)
        #expect(try roundTrip(db, Int?.some(7)) == .integer(7))
        #expect(try roundTrip(db, SQLValue.null) == .null)
    }

    @Test func typedReading() throws {
        let dir = try TempDir("homebase-storage")
        defer { dir.cleanup() }
        let db = try open(dir)
        let row = try db.query("SELECT 42 AS n, 'text' AS s, NULL AS z, 2.5 AS d, x'00ff' AS b")[0]
        #expect(try row.get("n") == Int64(42))
        #expect(try row.get("s") == "text")
        #expect(try row.get("z", as: String?.self) == nil)
        #expect(try row.get("n", as: Int?.self) == 42)
        #expect(try row.get("d") == 2.5)
        #expect(try row.get("n", as: Double.self) == 42)
        #expect(try row.get("b") == [UInt8]([0, 0xff]))
        #expect(storageError { _ = try row.get("s", as: Int64.self) }
            == .columnType(column: "s", expected: "Int64", found: "TEXT"))
        #expect(storageError { _ = try row.get("z", as: String.self) }
            == .columnType(column: "z", expected: "String", found: "NULL"))
        #expect(storageError { _ = try row.get("n", as: Bool.self) }
            == .columnType(column: "n", expected: "Bool", found: "INTEGER"))
        guard case .misuse = storageError({ _ = try row.get("missing", as: Int.self) }),
            case .misuse = storageError({ _ = try row.get(9, as: Int.self) })
        else {
            Issue.record("reading a column that does not exist must be misuse")
            return
        }
    }

    @Test func parameterCountMustMatch() throws {
        let dir = try TempDir("homebase-storage")
        defer { dir.cleanup() }
        let db = try open(dir)
        #expect(storageError { try db.execute("INSERT INTO v(x) VALUES (?)") }
            == .misuse(operation: "execute", detail: "statement has 1 parameters, 0 given"))
        #expect(storageError { try db.execute("INSERT INTO v(x) VALUES (?)", 1, 2) }
            == .misuse(operation: "execute", detail: "statement has 1 parameters, 2 given"))
        #expect(try db.query("SELECT count(*) FROM v")[0].get(0) == 0)
    }

    @Test func oneStatementPerCall() throws {
        let dir = try TempDir("homebase-storage")
        defer { dir.cleanup() }
        let db = try open(dir)
        #expect(storageError { try db.execute("INSERT INTO v(x) VALUES (1); INSERT INTO v(x) VALUES (2)") }
            == .misuse(operation: "execute", detail: "exactly one SQL statement per call"))
        try db.execute("INSERT INTO v(x) VALUES (1); -- a trailing comment is fine")
        #expect(try db.query("SELECT count(*) FROM v")[0].get(0) == 1)
    }

    @Test func syntaxErrorHasNoBoundValues() throws {
        let dir = try TempDir("homebase-storage")
        defer { dir.cleanup() }
        let db = try open(dir)
        let error = storageError { _ = try db.query("SELEC x FROM v WHERE x = ?", "a-secret") }
        guard case let .sqlite(path, operation, _, message) = error else {
            Issue.record("expected sqlite error, got \(String(describing: error))")
            return
        }
        #expect(path == dir.path("a.db") && operation == "query (prepare)" && message.contains("syntax error"))
        #expect(error?.description.contains("a-secret") == false)
    }

    @Test func statementCacheEvictionKeepsWorking() throws {
        let dir = try TempDir("homebase-storage")
        defer { dir.cleanup() }
        var options = DatabaseOptions()
        options.statementCacheLimit = 2
        let db = try Database(path: dir.path("a.db"), schema: schema(["CREATE TABLE v(x);"]), options: options)
        for i in 0..<10 {
            try db.execute("INSERT INTO v(x) VALUES (\(i % 5))")
        }
        #expect(try db.query("SELECT sum(x) FROM v")[0].get(0) == 20)
    }

    @Test func insertReturningGivesTheRowID() throws {
        let dir = try TempDir("homebase-storage")
        defer { dir.cleanup() }
        let db = try open(dir)
        let first = try db.query("INSERT INTO v(x) VALUES (?) RETURNING id", "a")[0].get(0, as: Int64.self)
        let second = try db.query("INSERT INTO v(x) VALUES (?) RETURNING id", "b")[0].get(0, as: Int64.self)
        #expect(second == first + 1)
        #expect(try db.query("SELECT x FROM v WHERE id = ?", second)[0].get(0) == "b")
    }
}
