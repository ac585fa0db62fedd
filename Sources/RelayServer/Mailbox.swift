import Storage
import Wire

/// Stored mail frames for offline (or not yet caught up) recipients, in SQLite (WAL).
/// Every method commits before it returns: the caller answers `stored` only afterwards.
final class Mailbox {
    struct Caps { var frames: Int; var bytes: Int }

    enum StoreResult: Equatable, Sendable {
        /// Committed; `replaced` when a frame with the same collapse key was removed.
        case stored(seq: Int64, replaced: Bool)
        /// The same (recipient, sender, frame id) is already stored: nothing written.
        case duplicate
        /// The recipient is over its caps: nothing written.
        case full
    }

    struct Item {
        let seq: Int64
        let sender: Bytes32
        let frameID: Bytes16
        let storedMs: Int64
        let sealed: [UInt8]
    }

    private let db: Database
    let caps: Caps

    init(path: String, caps: Caps, durability: RelayConfig.Durability) throws(RelayError) {
        self.caps = caps
        let options = DatabaseOptions(synchronous: durability == .full ? .full : .normal)
        do { db = try Database(path: path, schema: MailboxSchema.schema, options: options) } catch {
            throw .storage("\(error)")
        }
    }

    private struct Full: Error {}

    func store(recipient: Bytes32, sender: Bytes32, frameID: Bytes16, collapseKey: [UInt8],
               sealed: ArraySlice<UInt8>, nowMs: Int64, expiresMs: Int64) throws(RelayError) -> StoreResult {
        let r = recipient.bytes, s = sender.bytes
        let ck: SQLValue = collapseKey.isEmpty ? .null : .blob(collapseKey)
        let size = sealed.count
        do {
            return try db.transaction { tx -> StoreResult in
                if try !tx.query("SELECT 1 FROM mail WHERE recipient = ? AND sender = ? AND frame_id = ?",
                                 r, s, frameID.bytes).isEmpty {
                    return .duplicate
                }
                var replaced = false
                if ck != .null {
                    replaced = try tx.execute("DELETE FROM mail WHERE recipient = ? AND sender = ? AND collapse_key = ?", r, s, ck) > 0
                }
                let row = try tx.query("SELECT count(*), coalesce(sum(size), 0) FROM mail WHERE recipient = ? AND expires_ms > ?", r, nowMs)
                let (n, b): (Int, Int) = (try row[0].get(0), try row[0].get(1))
                if n + 1 > caps.frames || b + size > caps.bytes { throw Full() } // rolls back the collapse delete
                let seq = try tx.query("""
                    INSERT INTO mail (recipient, sender, frame_id, collapse_key, size, stored_ms, expires_ms, sealed)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq
                    """, r, s, frameID.bytes, ck, size, nowMs, expiresMs, Array(sealed))
                return .stored(seq: try seq[0].get(0), replaced: replaced)
            }
        } catch is Full {
            return .full
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
        do { return try db.execute("DELETE FROM mail WHERE recipient = ? AND frame_id = ?", recipient.bytes, frameID.bytes) } catch {
            throw .storage("\(error)")
        }
    }

    /// Deletes every frame whose TTL has passed; returns how many.
    func sweep(nowMs: Int64) throws(RelayError) -> Int {
        do { return try db.execute("DELETE FROM mail WHERE expires_ms <= ?", nowMs) } catch { throw .storage("\(error)") }
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

    func close() { db.close() }
}
