import PeerLink
import Sealing
import Signing
import Wire

/// Reassembles split messages (Wire's `Reassembler`) and remembers, per message, who sent it,
/// the frames to ack and the envelope of its last part (whose id and stream secret the whole
/// message takes). A part naming a message id another sender is filling is refused, so one
/// device cannot spoil another's message; a first part over its sender's `PartBudgets` is
/// refused, so one device (or all grantees) cannot take the room of the others.
struct PartCollector {
    private struct Meta {
        var sender: PublicKey
        var own: Bool
        /// The announced total length: what the message holds against its budgets.
        var total: Int
        /// Frames with the payload emptied: only what `PeerLink.ack` needs.
        var frames: [Inbound] = []
        var last: (id: MessageID, secret: SecretBytes)?
    }

    /// A whole message and what it takes from its parts.
    struct Complete {
        var bytes: [UInt8]
        var frames: [Inbound]
        var messageID: MessageID
        var streamSecret: SecretBytes
    }

    enum Outcome {
        case pending
        case complete(Complete)
        case refused
        /// A first part over its sender's budget (or its class's).
        case overBudget
    }

    private var reassembler: Reassembler
    private var meta: [Bytes16: Meta] = [:]
    private var ledger: PartLedger

    init(configuration: Reassembler.Configuration, budgets: PartBudgets = PartBudgets()) {
        reassembler = Reassembler(configuration: configuration)
        ledger = PartLedger(budgets: budgets)
    }

    /// `own`: the sender is one of the account's own devices (its own budget class).
    mutating func add(_ part: AppMessage.Part, opened: OpenedMessage, frame: Inbound, nowMs: UInt64,
                      own: Bool = false) -> Outcome {
        let isNew = meta[part.messageID] == nil
        var m = meta[part.messageID] ?? Meta(sender: opened.sender, own: own, total: Int(part.totalLength))
        guard m.sender == opened.sender else { return .refused }
        if isNew && part.count > 1 && !ledger.admits(m.sender, own: own, bytes: m.total) { return .overBudget }
        var slim = frame
        slim.payload = []
        m.frames.append(slim)
        let whole: [UInt8]?
        do {
            whole = try reassembler.add(part, nowMs: nowMs)
        } catch .duplicatePart {
            meta[part.messageID] = m  // the message lives on; its duplicate frame is acked with it
            return .refused
        } catch {
            // inconsistent: discarded by the reassembler; other errors: never started.
            if case .inconsistentParts = error, !isNew { drop(part.messageID) }
            return .refused
        }
        if part.index == part.count - 1 { m.last = (opened.messageID, opened.streamSecret) }
        guard let whole else {
            if isNew { ledger.reserve(m.sender, own: m.own, bytes: m.total) }
            meta[part.messageID] = m
            return .pending
        }
        if !isNew { drop(part.messageID) }
        // A complete message always has its last part, so `last` is set.
        guard let last = m.last else { return .refused }
        return .complete(Complete(bytes: whole, frames: m.frames, messageID: last.id, streamSecret: last.secret))
    }

    /// Drops messages past their deadline; returns how many, and their frames (to ack: they are useless now).
    mutating func expire(nowMs: UInt64) -> (count: Int, frames: [Inbound]) {
        let gone = reassembler.expire(nowMs: nowMs)
        var frames: [Inbound] = []
        for g in gone { frames += drop(g.messageID)?.frames ?? [] }
        return (gone.count, frames)
    }

    @discardableResult
    private mutating func drop(_ id: Bytes16) -> Meta? {
        guard let m = meta.removeValue(forKey: id) else { return nil }
        ledger.release(m.sender, own: m.own, bytes: m.total)
        return m
    }
}

/// What the incomplete messages hold against `PartBudgets`: per sender and per class.
struct PartLedger {
    private struct Use {
        var messages = 0
        var bytes = 0
        func fits(_ b: PartBudgets.Budget, adding bytes: Int) -> Bool {
            messages + 1 <= b.messages && self.bytes + bytes <= b.bytes
        }
    }

    let budgets: PartBudgets
    private var bySender: [PublicKey: Use] = [:]
    private var own = Use()
    private var others = Use()

    init(budgets: PartBudgets) { self.budgets = budgets }

    func admits(_ sender: PublicKey, own isOwn: Bool, bytes: Int) -> Bool {
        (bySender[sender] ?? Use()).fits(budgets.perSender, adding: bytes)
            && (isOwn ? own.fits(budgets.ownDevices, adding: bytes) : others.fits(budgets.others, adding: bytes))
    }

    mutating func reserve(_ sender: PublicKey, own isOwn: Bool, bytes: Int) { change(sender, own: isOwn, by: 1, bytes) }

    mutating func release(_ sender: PublicKey, own isOwn: Bool, bytes: Int) { change(sender, own: isOwn, by: -1, -bytes) }

    private mutating func change(_ sender: PublicKey, own isOwn: Bool, by n: Int, _ bytes: Int) {
        var u = bySender[sender] ?? Use()
        u.messages += n; u.bytes += bytes
        bySender[sender] = u.messages > 0 ? u : nil
        if isOwn { own.messages += n; own.bytes += bytes } else { others.messages += n; others.bytes += bytes }
    }
}
