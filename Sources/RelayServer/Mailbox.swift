import Storage
import RelayWire

/// Stored mail frames for offline (or not yet caught up) recipients, in SQLite (WAL).
/// Every method commits before it returns: the caller answers `stored` only afterwards.
final class Mailbox {
    struct Caps: Equatable { var frames: Int; var bytes: Int }

    enum StoreResult: Equatable, Sendable {
        /// Committed; `replaced` when a frame with the same collapse key was removed.
        case stored(seq: Int64, replaced: Bool)
        /// The same (recipient, sender, frame id) is already stored: nothing written.
        case duplicate
        /// Over a quota (MailQuota.swift): nothing written.
        case refused(MailRefusal)
    }

    struct Item {
        let seq: Int64
        let sender: Bytes32
        let frameID: Bytes16
        let storedMs: Int64
        let sealed: [UInt8]
    }

    let db: Database
    let quotas: MailQuotas
    var caps: Caps { quotas.recipient }
    /// Sealed bytes stored in all (the disk budget's measure), kept in step with every write.
    private(set) var totalBytes = 0

    init(path: String, quotas: MailQuotas, durability: RelayConfig.Durability) throws(RelayError) {
        self.quotas = quotas
        let options = DatabaseOptions(synchronous: durability == .full ? .full : .normal)
        do { db = try Database(path: path, schema: MailboxSchema.schema, options: options) } catch {
            throw .storage("\(error)")
        }
        totalBytes = try totals().bytes
    }

    private struct Refused: Error { let why: MailRefusal }

    /// `source`: the sending connection's client address (per-address quota).
    /// `senderAccount`: the sending device's verified account key (own-account room, MailQuota.swift).
    func store(recipient: Bytes32, sender: Bytes32, senderAccount: Bytes32? = nil, source: String, frameID: Bytes16, collapseKey: [UInt8],
               sealed: ArraySlice<UInt8>, nowMs: Int64, expiresMs: Int64) throws(RelayError) -> StoreResult {
        let r = recipient.bytes, s = sender.bytes
        let ck: SQLValue = collapseKey.isEmpty ? .null : .blob(collapseKey)
        let size = sealed.count
        var freed = 0
        do {
            let result = try db.transaction { tx -> StoreResult in
                if try !tx.query("SELECT 1 FROM mail WHERE recipient = ? AND sender = ? AND frame_id = ?",
                                 r, s, frameID.bytes).isEmpty {
                    return .duplicate
                }
                var expires = expiresMs
                let seen = try tx.query("SELECT account FROM seen WHERE key = ?", r)
                let recipientAccount: [UInt8]? = try seen.first.flatMap { try $0.get(0, as: [UInt8]?.self) }
                if seen.isEmpty {
                    guard quotas.unseenTTLMs > 0 else { throw Refused(why: .unseenRecipient) }
                    expires = min(expires, nowMs + quotas.unseenTTLMs)
                }
                if ck != .null {
                    freed = try tx.query("DELETE FROM mail WHERE recipient = ? AND sender = ? AND collapse_key = ? RETURNING size", r, s, ck)
                        .reduce(0) { $0 + ((try? $1.get(0) as Int) ?? 0) }
                }
                let replaced = freed > 0
                // A frame that replaces the sender's own collapsed one takes no new room: always admitted.
                if !replaced, let why = try quotas.refusal(tx, recipient: r, sender: s, source: source, size: size,
                                                          totalBytes: totalBytes, nowMs: nowMs,
                                                          ownAccount: recipientAccount != nil && recipientAccount == senderAccount?.bytes,
                                                          recipientHasAccount: recipientAccount != nil) {
                    throw Refused(why: why) // rolls back
                }
                let seq = try tx.query("""
                    INSERT INTO mail (recipient, sender, frame_id, collapse_key, size, stored_ms, expires_ms, sealed, source)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq
                    """, r, s, frameID.bytes, ck, size, nowMs, expires, Array(sealed), source)
                return .stored(seq: try seq[0].get(0), replaced: replaced)
            }
            if case .stored = result { totalBytes += size - freed }
            return result
        } catch let e as Refused {
            return .refused(e.why)
        } catch {
            throw .storage("\(error)")
        }
    }

    /// Up to `limit` unexpired frames for `recipient` after `afterSeq`, oldest first.
    func pending(for recipient: Bytes32, after afterSeq: Int64, limit: Int, nowMs: Int64) throws(RelayError) -> [Item] {
        do {
            let rows = try db.query("""
                SELECT seq, sender, frame_id, stored_ms, sealed FROM mail
                WHERE recipient = ? AND seq > ? AND expires_ms > ? ORDER BY seq LIMIT ?
                """, recipient.bytes, afterSeq, nowMs, limit)
            return try rows.map { row in
                let sender: [UInt8] = try row.get(1), id: [UInt8] = try row.get(2)
                guard let s = Bytes32(sender), let i = Bytes16(id) else { throw StorageError.misuse(operation: "read mail", detail: "bad key length") }
                return Item(seq: try row.get(0), sender: s, frameID: i, storedMs: try row.get(3), sealed: try row.get(4))
            }
        } catch {
            throw .storage("\(error)")
        }
    }

    /// Deletes `recipient`'s frame(s) with this id; returns how many (0: unknown id, ignored).
    func ack(recipient: Bytes32, frameID: Bytes16) throws(RelayError) -> Int {
        try deleting("DELETE FROM mail WHERE recipient = ? AND frame_id = ? RETURNING size", [recipient.bytes, frameID.bytes])
    }

    /// Deletes every frame whose TTL has passed; returns how many.
    func sweep(nowMs: Int64) throws(RelayError) -> Int {
        try deleting("DELETE FROM mail WHERE expires_ms <= ? RETURNING size", [nowMs])
    }

    /// Frames and sealed bytes stored (for /metrics).
    func totals() throws(RelayError) -> (frames: Int, bytes: Int) {
        do {
            let row = try db.query("SELECT count(*), coalesce(sum(size), 0) FROM mail")
            return (try row[0].get(0), try row[0].get(1))
        } catch {
            throw .storage("\(error)")
        }
    }

    /// Runs a `DELETE ... RETURNING size`; returns how many rows went (the total follows).
    private func deleting(_ sql: String, _ params: [any SQLBindable]) throws(RelayError) -> Int {
        do {
            let rows = try db.query(sql, parameters: params)
            totalBytes -= try rows.reduce(0) { $0 + (try $1.get(0) as Int) }
            return rows.count
        } catch {
            throw .storage("\(error)")
        }
    }

    func close() { db.close() }
}
