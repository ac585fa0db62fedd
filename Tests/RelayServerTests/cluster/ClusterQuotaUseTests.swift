import Testing
import Wire
@testable import RelayServer

/// ClusterMailboxUse without sockets: what a mailbox's subjects say about its frames and bytes.
struct ClusterQuotaUseTests {
    let r = Bytes32(unchecked: Array(repeating: 1, count: 32)), a = Bytes32(unchecked: Array(repeating: 2, count: 32))
    let b = Bytes32(unchecked: Array(repeating: 3, count: 32))

    func quotas() -> MailQuotas {
        var c = RelayConfig()
        c.mailboxMaxFrames = 4; c.mailboxMaxBytes = 100
        c.limits.mailboxSenderFrames = 2; c.limits.mailboxSenderBytes = 60
        c.limits.senderMailFrames = 3; c.limits.senderMailBytes = 1_000
        return MailQuotas(c)
    }

    func subject(_ s: Bytes32, _ size: Int, collapse: [UInt8] = [], expires: Int64 = 10_000) -> String {
        ClusterSubjects.mail(to: r, from: s, frameID: Bytes16(unchecked: (0..<16).map { _ in UInt8.random(in: 0...255) }), collapseKey: collapse, size: size, expiresMs: expires)
    }

    @Test func framesBytesAndTheSendersShareComeFromTheSubjects() {
        let sa = ClusterSubjects.keyHash(a)
        let kh = ClusterSubjects.keyHash(r)
        let held = [(subject(a, 10), 1), (subject(a, 20, collapse: [7]), 1), (subject(b, 30), 1), ("hb.m.\(kh).u.00ff", 1)]
        let tail = ClusterSubjects.tail(from: a, frameID: Bytes16(unchecked: Array(repeating: 0, count: 16)), collapseKey: [7])
        let use = ClusterMailboxUse(held.map { (subject: $0.0, msgs: $0.1) }, sender: sa, tail: tail, nowMs: 5_000)
        // The old-layout frame counts, with no size and no sender.
        #expect(use.frames == 4 && use.bytes == 60 && use.senderFrames == 2 && use.senderBytes == 30)
        #expect(use.collapsed == [held[1].0])
        #expect(use.refusal(size: 50, sent: nil, quotas: quotas()) == nil) // replaces its own collapsed frame
        let fresh = ClusterMailboxUse(held.map { (subject: $0.0, msgs: $0.1) }, sender: sa, tail: "u.00", nowMs: 5_000)
        #expect(fresh.refusal(size: 1, sent: nil, quotas: quotas()) == .recipientFull) // 4 frames held
        let two = ClusterMailboxUse(Array(held.prefix(2)).map { (subject: $0.0, msgs: $0.1) }, sender: sa, tail: "u.00", nowMs: 5_000)
        #expect(two.refusal(size: 1, sent: nil, quotas: quotas()) == .senderShare) // a holds 2
        let one = ClusterMailboxUse([(subject: held[0].0, msgs: 1)], sender: sa, tail: "u.00", nowMs: 5_000)
        #expect(one.refusal(size: 95, sent: nil, quotas: quotas()) == .recipientFull) // 10 + 95 bytes
        #expect(one.refusal(size: 51, sent: nil, quotas: quotas()) == .senderShare) // share: 10 + 51 > 60
        let sent = ClusterMailboxUse((0..<3).map { _ in (subject: subject(a, 1), msgs: 1) }, sender: sa, tail: nil, nowMs: 5_000)
        #expect(one.refusal(size: 1, sent: sent, quotas: quotas()) == .senderQuota)
        // Expired frames count for nothing (they wait in the stream for delivery or MaxAge).
        let stale = ClusterMailboxUse((0..<4).map { _ in (subject: subject(a, 50, expires: 5), msgs: 1) }, sender: sa, tail: "u.00", nowMs: 5_000)
        #expect(stale.frames == 0 && stale.bytes == 0 && stale.refusal(size: 1, sent: nil, quotas: quotas()) == nil)
    }
}
