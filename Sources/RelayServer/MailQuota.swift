import Storage
import RelayWire

/// Why a mail frame was refused (answered `mailbox-full`, counted on /metrics by this name).
enum MailRefusal: String, CaseIterable, Sendable {
    /// The recipient's mailbox is at mailbox-max-frames / -bytes.
    case recipientFull = "recipient-full"
    /// This sender's share of the recipient's mailbox is used up (room stays for other senders).
    case senderShare = "sender-share"
    /// The sender key holds sender-mail-frames / -bytes across all recipients.
    case senderQuota = "sender-quota"
    /// The source address holds ip-mail-frames / -bytes.
    case ipQuota = "ip-quota"
    /// The relay's mail-disk-budget is used up (live frames still flow).
    case diskBudget = "disk-budget"
    /// The recipient never authenticated here and unseen-recipient-ttl is 0.
    case unseenRecipient = "unseen-recipient"
}

/// The caps a stored frame must fit, checked inside the store's transaction, cheapest first.
struct MailQuotas: Equatable {
    var recipient: Mailbox.Caps
    var senderShare: Mailbox.Caps
    var sender: Mailbox.Caps
    var source: Mailbox.Caps
    var diskBudget: Int
    var unseenTTLMs: Int64
    /// Room in each mailbox that only the recipient's own account (same verified account key) may use.
    var ownReserve: Mailbox.Caps

    init(_ c: RelayConfig) {
        let l = c.limits
        recipient = .init(frames: c.mailboxMaxFrames, bytes: c.mailboxMaxBytes)
        senderShare = .init(frames: l.mailboxSenderFrames, bytes: l.mailboxSenderBytes)
        sender = .init(frames: l.senderMailFrames, bytes: l.senderMailBytes)
        source = .init(frames: l.ipMailFrames, bytes: l.ipMailBytes)
        diskBudget = l.mailDiskBudget
        unseenTTLMs = l.unseenRecipientTTL.milliseconds
        ownReserve = .init(frames: l.mailboxOwnReserveFrames, bytes: l.mailboxOwnReserveBytes)
    }

    /// The recipient's room for this sender: short of `ownReserve` unless it is the recipient's own account.
    func room(ownAccount: Bool, recipientHasAccount: Bool) -> Mailbox.Caps {
        guard recipientHasAccount && !ownAccount else { return recipient }
        return .init(frames: max(0, recipient.frames - ownReserve.frames), bytes: max(0, recipient.bytes - ownReserve.bytes))
    }

    /// The first cap a new frame of `size` bytes would pass, or nil when it fits them all.
    /// `ownAccount`: the sender and the recipient proved the same account key; `recipientHasAccount`:
    /// the recipient proved one (then other senders leave `ownReserve` free for its account).
    func refusal(_ tx: Transaction, recipient r: [UInt8], sender s: [UInt8], source: String, size: Int,
                 totalBytes: Int, nowMs: Int64, ownAccount: Bool, recipientHasAccount: Bool) throws -> MailRefusal? {
        if totalBytes + size > diskBudget { return .diskBudget }
        func over(_ caps: Mailbox.Caps, _ sql: String, _ params: any SQLBindable...) throws -> Bool {
            let row = try tx.query("SELECT count(*), coalesce(sum(size), 0) FROM mail WHERE " + sql, parameters: params)
            let (n, b): (Int, Int) = (try row[0].get(0), try row[0].get(1))
            return n + 1 > caps.frames || b + size > caps.bytes
        }
        if try over(room(ownAccount: ownAccount, recipientHasAccount: recipientHasAccount), "recipient = ? AND expires_ms > ?", r, nowMs) { return .recipientFull }
        if !ownAccount, try over(senderShare, "recipient = ? AND sender = ? AND expires_ms > ?", r, s, nowMs) { return .senderShare }
        if try over(sender, "sender = ?", s) { return .senderQuota }
        if try over(self.source, "source = ?", source) { return .ipQuota }
        return nil
    }
}

extension Mailbox {
    /// `key` authenticated now: mail to it is kept for its full TTL from now on.
    func markSeen(_ key: Bytes32, account: Bytes32?, nowMs: Int64) throws(RelayError) {
        let a: SQLValue = account.map { .blob($0.bytes) } ?? .null
        do {
            _ = try db.execute("""
                INSERT INTO seen (key, last_ms, account) VALUES (?, ?, ?)
                ON CONFLICT (key) DO UPDATE SET last_ms = excluded.last_ms, account = excluded.account
                """, key.bytes, nowMs, a)
        } catch {
            throw .storage("\(error)")
        }
    }

    /// Forgets keys not seen since `beforeMs` (mail to them gets the unseen TTL again).
    func forgetSeen(before beforeMs: Int64) throws(RelayError) {
        do { _ = try db.execute("DELETE FROM seen WHERE last_ms < ?", beforeMs) } catch { throw .storage("\(error)") }
    }
}
