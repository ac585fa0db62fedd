import Sealing
import Signing
import Storage
import Wire

/// A device of the account, as the roster lists it.
public struct SiblingDevice: Sendable, Equatable {
    public var record: DeviceRecord
    /// When it was added here (Unix ms).
    public var addedMs: Int64
}

extension HostStore {
    /// The signed roster, nil before `init`.
    public func roster() throws(HomebaseError) -> AppMessage.Roster? {
        let rows = try storing { try db.query("SELECT encoded FROM roster WHERE id = 1") }
        guard let blob = try? rows.first?.get(0, as: [UInt8].self) else { return nil }
        guard case .roster(let r)? = try? AppMessage.decode(blob) else { throw .storage("the stored roster does not decode") }
        return r
    }

    /// Every device of the account, this host included, oldest first. A row this version cannot
    /// read is skipped (`skippedRows()` reports it).
    public func devices() throws(HomebaseError) -> [SiblingDevice] { try readDevices().devices }

    func readDevices() throws(HomebaseError) -> (devices: [SiblingDevice], skipped: [SkippedRow]) {
        let rows = try storing { try db.query("SELECT signing_key, record, added_ms FROM devices ORDER BY added_ms, signing_key") }
        var devices: [SiblingDevice] = [], skipped: [SkippedRow] = []
        for row in rows {
            do {
                devices.append(SiblingDevice(record: try DeviceRecord(encoded: try row.get(1, as: [UInt8].self)),
                                             addedMs: try row.get(2, as: Int64.self)))
            } catch {
                skipped.append(SkippedRow(table: "devices", key: hex((try? row.get(0, as: [UInt8].self)) ?? []),
                                          reason: "its device record does not verify (\(error))"))
            }
        }
        return (devices, skipped)
    }

    /// The first roster: version 1, listing only `host`. Refuses if a roster exists.
    @discardableResult
    public func createRoster(accountKey: SigningKey, host: DeviceRecord, nowMs: Int64) throws(HomebaseError) -> AppMessage.Roster {
        try storing {
            try db.transaction { tx in
                guard try tx.query("SELECT 1 FROM roster").isEmpty else { throw HomebaseError.storage("a roster already exists") }
                try tx.execute("INSERT INTO devices(signing_key, record, added_ms) VALUES (?, ?, ?)",
                               host.signingKey.bytes, host.encoded, nowMs)
                return try Self.resign(tx, accountKey: accountKey, version: 1)
            }
        }
    }

    /// Adds a sibling (its record already verified by `DeviceRecord(encoded:)`), bumps the roster
    /// version and re-signs it. Adding a device already listed with the same record changes nothing.
    @discardableResult
    public func addDevice(_ record: DeviceRecord, accountKey: SigningKey, nowMs: Int64) throws(HomebaseError) -> AppMessage.Roster {
        try storing {
            try db.transaction { tx in
                let current = try Self.currentVersion(tx)
                let existing = try tx.query("SELECT record FROM devices WHERE signing_key = ?", record.signingKey.bytes)
                if let old = try existing.first?.get(0, as: [UInt8].self), old == record.encoded {
                    return try Self.resign(tx, accountKey: accountKey, version: current, bump: false)
                }
                try tx.execute("""
                    INSERT INTO devices(signing_key, record, added_ms) VALUES (?, ?, ?)
                    ON CONFLICT(signing_key) DO UPDATE SET record = excluded.record
                    """, record.signingKey.bytes, record.encoded, nowMs)
                return try Self.resign(tx, accountKey: accountKey, version: current + 1)
            }
        }
    }

    /// Removes a sibling and re-signs the roster (version + 1), retiring the pairing codes it
    /// used (`retirePairings`). The host itself cannot be removed.
    @discardableResult
    public func removeDevice(_ key: PublicKey, host: PublicKey, accountKey: SigningKey) throws(HomebaseError) -> AppMessage.Roster {
        guard key != host else { throw .selfDevice }
        return try storing {
            try db.transaction { tx in
                let current = try Self.currentVersion(tx)
                guard try tx.execute("DELETE FROM devices WHERE signing_key = ?", key.bytes) == 1 else {
                    throw HomebaseError.unknownDevice(key.hex)
                }
                _ = try Self.retirePairings(tx, device: key)
                return try Self.resign(tx, accountKey: accountKey, version: current + 1)
            }
        }
    }

    private static func currentVersion(_ tx: Transaction) throws -> UInt64 {
        guard let v = try tx.query("SELECT version FROM roster WHERE id = 1").first?.get(0, as: Int64.self) else {
            throw HomebaseError.storage("no roster yet: run `homebase init`")
        }
        return UInt64(v)
    }

    /// Signs the devices now stored as roster `version` and stores it.
    private static func resign(_ tx: Transaction, accountKey: SigningKey, version: UInt64, bump: Bool = true) throws -> AppMessage.Roster {
        let rows = try tx.query("SELECT record FROM devices ORDER BY added_ms, signing_key")
        var roster = AppMessage.Roster(accountKey: accountKey.publicKey, version: version,
                                       deviceRecords: try rows.map { try $0.get(0, as: [UInt8].self) })
        roster.signature = Bytes64(unchecked: accountKey.sign(try roster.signedBytes()))
        try tx.execute("""
            INSERT INTO roster(id, account_key, version, encoded) VALUES (1, ?, ?, ?)
            ON CONFLICT(id) DO UPDATE SET version = excluded.version, encoded = excluded.encoded
            """, accountKey.publicKey.bytes, Int64(version), try AppMessage.roster(roster).encode())
        return roster
    }
}

extension AppMessage.Roster {
    /// True when the account key signed exactly these bytes.
    public func verifies() -> Bool {
        guard let bytes = try? signedBytes() else { return false }
        return accountKey.isValidSignature(signature.bytes, for: bytes)
    }
}
