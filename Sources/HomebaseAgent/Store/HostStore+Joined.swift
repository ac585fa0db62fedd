import Sealing
import Signing
import Storage
import Wire

/// What became of a roster that came by mail to a Homebase that does not sign rosters.
public enum RosterVerdict: Equatable, Sendable {
    /// Stored; `listsThisHost` false means this Homebase was removed from the account.
    case accepted(version: UInt64, devices: Int, listsThisHost: Bool)
    /// The very roster held already (the one a pairing stored comes again by mail).
    case held(version: UInt64)
    /// Not stored: forged, for another account, or not newer than the one held.
    case refused(String)
}

// A Homebase that joined an account (`homebase pair CODE`) holds no account key: it stores the
// roster the account's first Homebase signed, verified, and takes newer ones by mail. The
// account public key in the roster table is its trust anchor from the pairing on.
extension HostStore {
    /// The account key the stored roster names; nil before `init` or a pairing.
    public func accountPublicKey() throws(HomebaseError) -> PublicKey? {
        let rows = try storing { try db.query("SELECT account_key FROM roster WHERE id = 1") }
        return (try? rows.first?.get(0, as: [UInt8].self)).flatMap { PublicKey(bytes: $0) }
    }

    /// The stored roster's first device: the one that ran `homebase init` (the signer lists
    /// devices in the order they were added, itself first).
    public func accountHead() throws(HomebaseError) -> DeviceRecord? {
        try roster()?.deviceRecords.first.flatMap { try? DeviceRecord(encoded: $0) }
    }

    /// Stores a roster signed elsewhere (already verified by the caller) as the account's,
    /// replacing the devices with its records. Devices known before keep their `added_ms`.
    public func storeRoster(_ r: AppMessage.Roster, records: [DeviceRecord], nowMs: Int64) throws(HomebaseError) {
        try storing { try db.transaction { tx in try Self.replace(tx, r, records, nowMs: nowMs) } }
    }

    /// A roster by mail: stored when the account key on file signed it and its version is
    /// higher than the stored one's (SPEC "Removing a device": older ones are refused).
    public func acceptRoster(_ r: AppMessage.Roster, me: PublicKey, nowMs: Int64) throws(HomebaseError) -> RosterVerdict {
        try storing {
            try db.transaction { tx in
                guard let row = try tx.query("SELECT account_key, version, encoded FROM roster WHERE id = 1").first,
                      let account = PublicKey(bytes: try row.get(0, as: [UInt8].self)) else {
                    return .refused("no account on file (pair this Homebase first)")
                }
                guard r.accountKey.bytes == account.bytes else { return .refused("names another account key") }
                guard let signed = try? r.signedBytes(), account.isValidSignature(r.signature.bytes, for: signed) else {
                    return .refused("its signature does not verify under the account key")
                }
                let held = UInt64(try row.get(1, as: Int64.self))
                if r.version == held, try row.get(2, as: [UInt8].self) == (try AppMessage.roster(r).encode()) {
                    return .held(version: held)
                }
                guard r.version > held else { return .refused("not newer than \(held)") }
                let records = r.deviceRecords.compactMap { try? DeviceRecord(encoded: $0) }
                try Self.replace(tx, r, records, nowMs: nowMs)
                return .accepted(version: r.version, devices: records.count, listsThisHost: records.contains { $0.signingKey == me })
            }
        }
    }

    private static func replace(_ tx: Transaction, _ r: AppMessage.Roster, _ records: [DeviceRecord], nowMs: Int64) throws {
        var added: [[UInt8]: Int64] = [:]
        for row in try tx.query("SELECT signing_key, added_ms FROM devices") {
            added[try row.get(0, as: [UInt8].self)] = try row.get(1, as: Int64.self)
        }
        try tx.execute("DELETE FROM devices")
        for d in records {
            try tx.execute("INSERT OR REPLACE INTO devices(signing_key, record, added_ms) VALUES (?, ?, ?)",
                           d.signingKey.bytes, d.encoded, added[d.signingKey.bytes] ?? nowMs)
        }
        try tx.execute("""
            INSERT INTO roster(id, account_key, version, encoded) VALUES (1, ?, ?, ?)
            ON CONFLICT(id) DO UPDATE SET account_key = excluded.account_key, version = excluded.version, encoded = excluded.encoded
            """, r.accountKey.bytes, Int64(r.version), try AppMessage.roster(r).encode())
    }
}
