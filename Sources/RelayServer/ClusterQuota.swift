import Basics
import RelayWire

/// The single node's mail quotas (MailQuota.swift) in the cluster, read from the stream before
/// publishing: each stored frame's subject names its sender and sealed size
/// and expiry (`hb.m.<kh>.<sh>.<size>.<exp>.…`, ClusterCodec.swift), so one subject-filtered
/// stream info gives a mailbox's unexpired frames and bytes, and the sender's share of them.
struct ClusterMailboxUse: Equatable {
    var frames = 0, bytes = 0
    var senderFrames = 0, senderBytes = 0
    /// The sender's frames under this collapse key (any size): the new one replaces them.
    var collapsed: [String] = []

    /// `subjects` of one mailbox (or of one sender's mail, `hb.m.*.<sh>.>`). Old-layout subjects
    /// (`hb.m.<kh>.u.<id>`) count as frames of unknown size and sender.
    /// Expired frames (2.9 keeps them until delivery or MaxAge) count for nothing, as on one node.
    init(_ subjects: [(subject: String, msgs: Int)], sender: String, tail: String?, nowMs: Int64) {
        for (subject, n) in subjects {
            let p = subject.split(separator: ".", omittingEmptySubsequences: false)
            guard p.count == 8, let size = Int(p[4]), let exp = Int64(p[5]) else { frames += n; continue }
            if p[3] == sender, let tail, p[6] + "." + p[7] == tail { collapsed.append(subject) }
            guard exp * 1000 > nowMs else { continue }
            frames += n
            bytes += size * n
            guard p[3] == sender else { continue }
            senderFrames += n
            senderBytes += size * n
        }
    }

    /// The first cap a new frame of `size` bytes would pass (the single node's order); nil: it fits.
    /// `sent`: all the sender holds across recipients. A frame that replaces the sender's own
    /// collapsed one takes no new room: always admitted, as on one node. `ownAccount` and
    /// `recipientHasAccount` as in `MailQuotas.refusal` (from the recipient's seen record).
    func refusal(size: Int, sent: ClusterMailboxUse?, quotas q: MailQuotas, ownAccount: Bool = false,
                 recipientHasAccount: Bool = false) -> MailRefusal? {
        if !collapsed.isEmpty { return nil }
        func over(_ c: Mailbox.Caps, _ n: Int, _ b: Int) -> Bool { n + 1 > c.frames || b + size > c.bytes }
        if over(q.room(ownAccount: ownAccount, recipientHasAccount: recipientHasAccount), frames, bytes) { return .recipientFull }
        if !ownAccount, over(q.senderShare, senderFrames, senderBytes) { return .senderShare }
        if let sent, over(q.sender, sent.senderFrames, sent.senderBytes) { return .senderQuota }
        return nil
    }
}

