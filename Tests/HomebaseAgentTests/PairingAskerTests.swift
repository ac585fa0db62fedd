import Foundation
@testable import HomebaseAgent
import Sealing
import Signing
import Testing
import Wire

/// The pairing_codes table remembers who asked for a code (a sibling's `pair-code-request`), so
/// the running agent can tell it when the code is used or burnt. A table made before the asker
/// columns keeps its rows: the next code adds the columns (guarded ALTER), old rows have no asker.
@Suite struct PairingAskerTests {
    @Test func anOldTableKeepsItsRowsAndTheNextCodeRemembersItsAsker() throws {
        let dir = try temporaryDirectory("homebase")
        let store = try HostStore(path: dir + "/homebase.sqlite3")
        defer { store.close() }
        // The table as it was before the asker columns, with one used code in it.
        _ = try store.db.execute("""
            CREATE TABLE pairing_codes(code_id BLOB PRIMARY KEY, secret BLOB NOT NULL,
                created_ms INTEGER NOT NULL, expires_ms INTEGER NOT NULL, tries INTEGER NOT NULL DEFAULT 0, max_tries INTEGER NOT NULL,
                state TEXT NOT NULL, device_key BLOB, device_name TEXT, confirmation TEXT, done_ms INTEGER)
            """)
        let old = Bytes8.repeating(1)
        _ = try store.db.execute("INSERT INTO pairing_codes(code_id, secret, created_ms, expires_ms, max_tries, state) VALUES (?, ?, 1, 2, 3, 'used')",
                                 old.bytes, [UInt8](repeating: 9, count: 32))
        // Read before the ALTER: the old row, no asker.
        #expect(try store.pairing(old)?.state == .used && store.pairing(old)?.askerKey == nil)

        let asker = SigningKey.generate().publicKey, request = Bytes16.repeating(5)
        let new = Bytes8.repeating(2)
        try store.savePairing(codeID: new, secret: .repeating(3), createdMs: 10, expiresMs: 20, maxTries: 3, asker: (asker, request))
        try store.savePairing(codeID: .repeating(3), secret: .repeating(4), createdMs: 11, expiresMs: 20, maxTries: 3)  // the ALTER ran once
        let rows = try store.pairings()
        #expect(rows.count == 3)
        #expect(try store.pairing(old)?.state == .used && store.pairing(old)?.askerKey == nil && store.pairing(old)?.maxTries == 3)
        #expect(try store.pairing(new)?.askerKey == asker && store.pairing(new)?.askerRequest == request)
        #expect(try store.pairing(.repeating(3))?.askerKey == nil)
    }
}
