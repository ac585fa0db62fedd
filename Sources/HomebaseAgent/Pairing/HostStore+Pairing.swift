import Sealing
import Signing
import Storage
import Wire

/// One pairing code this Homebase issued (`homebase pair`), and what became of it.
public struct PairingRecord: Sendable, Equatable {
    public enum State: String, Sendable {
        /// Waiting for a device to use it.
        case open
        /// A device paired with it: single use.
        case used
        /// Too many wrong attempts.
        case burnt
        /// Used, then its device was removed (`devices remove`): it never serves again.
        case retired
    }

    public var codeID: Bytes8
    public var secret: Secret32
    public var createdMs: Int64
    public var expiresMs: Int64
    /// Wrong attempts so far, and how many burn the code.
    public var tries: Int
    public var maxTries: Int
    public var state: State
    /// The device that paired with it (when used), its name, and the confirmation both showed.
    public var deviceKey: PublicKey?
    public var deviceName: String?
    public var confirmation: String?
    public var doneMs: Int64?
    /// The sibling that asked for the code (`pair-code-request`) and its request id; nil for
    /// `homebase pair`. It is told when the code is used or burnt.
    public var askerKey: PublicKey?
    public var askerRequest: Bytes16?
}

// The codes live in their own table, created on first use (not a schema migration: the
// sharing flow adds migrations to this store at the same time). The asker columns came later:
// a table made before them gets them by a guarded ALTER (its rows stay, askers NULL).
extension HostStore {
    static let pairingTable = """
        CREATE TABLE IF NOT EXISTS pairing_codes(code_id BLOB PRIMARY KEY, secret BLOB NOT NULL,
            created_ms INTEGER NOT NULL, expires_ms INTEGER NOT NULL, tries INTEGER NOT NULL DEFAULT 0, max_tries INTEGER NOT NULL,
            state TEXT NOT NULL, device_key BLOB, device_name TEXT, confirmation TEXT, done_ms INTEGER,
            asker_key BLOB, asker_request BLOB)
        """

    /// Stores a new open code; `asker` is the sibling that asked for it (nil: `homebase pair`).
    public func savePairing(codeID: Bytes8, secret: Secret32, createdMs: Int64, expiresMs: Int64, maxTries: Int,
                            asker: (key: PublicKey, request: Bytes16)? = nil) throws(HomebaseError) {
        try storing {
            _ = try db.execute(Self.pairingTable)
            if try !hasAskerColumns() {
                _ = try db.execute("ALTER TABLE pairing_codes ADD COLUMN asker_key BLOB")
                _ = try db.execute("ALTER TABLE pairing_codes ADD COLUMN asker_request BLOB")
            }
            _ = try db.execute("""
                INSERT INTO pairing_codes(code_id, secret, created_ms, expires_ms, max_tries, state, asker_key, asker_request)
                VALUES (?, ?, ?, ?, ?, 'open', ?, ?)
                """, codeID.bytes, secret.bytes, createdMs, expiresMs, Int64(maxTries), asker?.key.bytes, asker?.request.bytes)
        }
    }

    /// True when the table has the asker columns (a table from before them has not, until the next code).
    private func hasAskerColumns() throws -> Bool {
        try db.query("SELECT 1 FROM pragma_table_info('pairing_codes') WHERE name = 'asker_request'").isEmpty == false
    }

    /// The code with this id; nil when there is none.
    public func pairing(_ id: Bytes8) throws(HomebaseError) -> PairingRecord? {
        try pairings(where: "WHERE code_id = ?", [id.bytes]).first
    }

    /// Every code, newest first.
    public func pairings() throws(HomebaseError) -> [PairingRecord] {
        try pairings(where: "", [])
    }

    private func pairings(where clause: String, _ params: [any SQLBindable]) throws(HomebaseError) -> [PairingRecord] {
        try storing {
            // A store that never issued a code has no table (and a read-only one cannot make it).
            guard try !db.query("SELECT 1 FROM sqlite_master WHERE name = 'pairing_codes'").isEmpty else { return [] }
            let askers = try hasAskerColumns() ? "asker_key, asker_request" : "NULL, NULL"
            return try db.query("""
                SELECT code_id, secret, created_ms, expires_ms, tries, max_tries, state, device_key, device_name, confirmation, done_ms,
                    \(askers)
                FROM pairing_codes \(clause) ORDER BY created_ms DESC
                """, parameters: params).map { r in
                PairingRecord(codeID: Bytes8(unchecked: try r.get(0, as: [UInt8].self)),
                              secret: Secret32(unchecked: try r.get(1, as: [UInt8].self)),
                              createdMs: try r.get(2), expiresMs: try r.get(3), tries: Int(try r.get(4, as: Int64.self)),
                              maxTries: Int(try r.get(5, as: Int64.self)),
                              state: PairingRecord.State(rawValue: try r.get(6)) ?? .burnt,
                              deviceKey: (try r.get(7, as: [UInt8]?.self)).flatMap { PublicKey(bytes: $0) },
                              deviceName: try r.get(8), confirmation: try r.get(9), doneMs: try r.get(10),
                              askerKey: (try r.get(11, as: [UInt8]?.self)).flatMap { PublicKey(bytes: $0) },
                              askerRequest: (try r.get(12, as: [UInt8]?.self)).flatMap { Bytes16($0) })
            }
        }
    }

    /// Counts one wrong attempt; at the code's `maxTries` it is burnt. Returns the tries left.
    public func pairingWrongTry(_ id: Bytes8) throws(HomebaseError) -> Int {
        try storing {
            try db.transaction { tx in
                guard let row = try tx.query("SELECT tries, max_tries FROM pairing_codes WHERE code_id = ?", id.bytes).first else { return 0 }
                let tries = Int(try row.get(0, as: Int64.self)) + 1, maxTries = Int(try row.get(1, as: Int64.self))
                _ = try tx.execute("UPDATE pairing_codes SET tries = ?, state = CASE WHEN ? >= ? THEN 'burnt' ELSE state END WHERE code_id = ?",
                                   Int64(tries), Int64(tries), Int64(maxTries), id.bytes)
                return max(0, maxTries - tries)
            }
        }
    }

    /// Retires the codes `device` paired with, in the transaction that removes it: a removed
    /// device cannot come back with a code from its shell history. Returns how many.
    static func retirePairings(_ tx: Transaction, device: PublicKey) throws -> Int {
        guard try !tx.query("SELECT 1 FROM sqlite_master WHERE name = 'pairing_codes'").isEmpty else { return 0 }
        return try tx.execute("UPDATE pairing_codes SET state = 'retired' WHERE device_key = ? AND state = 'used'",
                              device.bytes)
    }

    /// Marks the code used by `device`, with the confirmation both sides show.
    public func pairingUsed(_ id: Bytes8, device: DeviceRecord, confirmation: String, nowMs: Int64) throws(HomebaseError) {
        try storing {
            _ = try db.execute("""
                UPDATE pairing_codes SET state = 'used', device_key = ?, device_name = ?, confirmation = ?, done_ms = ?
                WHERE code_id = ?
                """, device.signingKey.bytes, device.name, confirmation, nowMs, id.bytes)
        }
    }
}
