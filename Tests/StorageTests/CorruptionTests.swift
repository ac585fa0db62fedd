import Foundation
import TestKit
import Testing
@testable import Storage

/// A damaged file is reported with its path and left exactly as it was.
@Suite struct CorruptionTests {
    private func expectCorrupt(_ path: String, in dir: TempDir, options: DatabaseOptions = DatabaseOptions()) throws {
        let before = try bytes(path)
        let listing = try dir.listing()
        let error = storageError { _ = try Database(path: path, schema: schema(), options: options) }
        guard case let .corrupt(p, detail) = error else {
            Issue.record("expected corrupt, got \(String(describing: error))")
            return
        }
        #expect(p == path)
        #expect(!detail.isEmpty)
        #expect(error!.description.contains(path))
        #expect(try bytes(path) == before, "the file must stay byte-identical")
        #expect(try dir.listing() == listing, "no file may be added or removed beside it")
    }

    @Test func garbageFileIsCorruptAndUntouched() throws {
        let dir = try TempDir("homebase-storage")
        defer { dir.cleanup() }
        let path = dir.path("a.db")
        var rng = SystemRandomNumberGenerator()
        let garbage = (0..<8192).map { _ in UInt8.random(in: 0...255, using: &rng) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data(garbage)))
        try expectCorrupt(path, in: dir)
    }

    @Test func textFileIsCorrupt() throws {
        let dir = try TempDir("homebase-storage")
        defer { dir.cleanup() }
        let path = dir.path("a.db")
        #expect(FileManager.default.createFile(atPath: path, contents: Data("not a database\n".utf8)))
        try expectCorrupt(path, in: dir)
    }

    @Test(arguments: [0.5, 0.9])
    func truncatedDatabaseIsCorruptAndUntouched(keep: Double) throws {
        let dir = try TempDir("homebase-storage")
        defer { dir.cleanup() }
        let path = dir.path("a.db")
        try makeFilledDatabase(path)
        let full = try bytes(path)
        #expect(full.count > 8 * 4096)
        let cut = Int(Double(full.count) * keep) / 4096 * 4096
        try Data(full.prefix(cut)).write(to: URL(fileURLWithPath: path))
        try expectCorrupt(path, in: dir)
    }

    @Test func damagedPageIsFoundByQuickCheck() throws {
        let dir = try TempDir("homebase-storage")
        defer { dir.cleanup() }
        let path = dir.path("a.db")
        try makeFilledDatabase(path)
        var file = try bytes(path)
        // Page 4 (a leaf of `item`): overwrite its b-tree page header.
        let page = 3 * 4096
        for i in page..<(page + 64) { file[i] = 0xff }
        try Data(file).write(to: URL(fileURLWithPath: path))
        try expectCorrupt(path, in: dir)
    }

    @Test func healthyDatabasePassesQuickCheck() throws {
        let dir = try TempDir("homebase-storage")
        defer { dir.cleanup() }
        let path = dir.path("a.db")
        try makeFilledDatabase(path)
        let db = try Database(path: path, schema: schema())
        #expect(try db.query("SELECT count(*) FROM item")[0].get(0) == 200)
    }
}
