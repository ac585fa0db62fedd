import Foundation
import Glibc
import TestKit
import Testing
@testable import Storage

/// Stores hold pairing and invite secrets and conversation replicas: the database file and the
/// `-wal` and `-shm` SQLite makes beside it are 0600 whatever the umask, and a store made 0644
/// by an older version is tightened when opened for writing.
@Suite(.serialized) struct FileModeTests {
    @Test func aNewStoreAndItsWALAndSHMAre0600UnderAPermissiveUmask() throws {
        let dir = try TempDir("homebase-storage")
        defer { dir.cleanup() }
        let old = umask(0o022)
        defer { umask(old) }
        let path = dir.path("store.sqlite")
        let db = try Database(path: path, schema: schema(), options: fastOptions())
        try db.execute("INSERT INTO item(name) VALUES (?)", "secret")
        #expect(fileMode(path) == 0o600)
        #expect(fileMode(path + "-wal") == 0o600)
        #expect(fileMode(path + "-shm") == 0o600)
        db.close()
    }

    @Test func anOlderWorldReadableStoreIsTightenedOnOpen() throws {
        let dir = try TempDir("homebase-storage")
        defer { dir.cleanup() }
        let path = dir.path("store.sqlite")
        do {
            let db = try Database(path: path, schema: schema(), options: fastOptions())
            try db.execute("INSERT INTO item(name) VALUES (?)", "kept")
            db.close()
        }
        chmod(path, 0o644)
        let again = try Database(path: path, schema: schema(), options: fastOptions())
        defer { again.close() }
        #expect(fileMode(path) == 0o600)
        #expect(try again.query("SELECT name FROM item").count == 1)
        // A read-only open changes nothing (it may be another user's file).
        chmod(path, 0o640)
        let reader = try Database(path: path, schema: schema(), options: fastOptions(readOnly: true))
        reader.close()
        #expect(fileMode(path) == 0o640)
    }
}
