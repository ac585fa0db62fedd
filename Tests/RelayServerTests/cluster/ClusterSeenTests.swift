import Foundation
import Testing
import Wire

/// The quotas that need to know the recipient (its seen record, `hb.s.<kh>`, written by the node
/// it authenticated on): the own-account reserve and exemption, the unseen-recipient rule.
@Suite(.serialized) struct ClusterSeenTests {
    /// A device on relay `i` with a proof of `account`.
    func accountDevice(_ f: ClusterFixture, _ i: Int, _ k: SigningKeyBox, account: SigningKeyBox) throws -> TestClient {
        let r = f.relay(i)
        let c = try TestClient.connect(loop: f.loop.loop, port: r.port)
        try c.authenticate(key: k, origin: r.origin, account: account)
        guard case .authOK = try c.next() else { throw TestSetupError("no auth-ok on relay-\(i + 1)") }
        _ = try backlog(c)
        return c
    }

    /// Strangers on two nodes stop short of the room reserved for the recipient's own account; a
    /// sibling device of that account on a third node gets in, past the sender share too.
    @Test func strangersLeaveRoomForTheRecipientsOwnAccountAcrossNodes() throws {
        let f = try ClusterFixture(extra: ["--mailbox-max-frames", "10", "--mailbox-own-reserve-frames", "4", "--mailbox-sender-frames", "3"])
        defer { f.stop() }
        let account = SigningKeyBox(), b = SigningKeyBox()
        let first = try accountDevice(f, 1, b, account: account)
        first.close()
        _ = try first.untilClosed()
        Thread.sleep(forTimeInterval: 0.3) // the seen record is a plain publish: let it land (not a speed assertion)
        var stored = 0
        for i in [0, 2, 0] {
            let (stranger, _) = try f.device(i)
            for _ in 0..<3 { stranger.mail(to: b.publicKey, id: frameID(), [1]); if case .stored = try stranger.next() { stored += 1 } }
        }
        #expect(stored == 6)
        let sibling = try accountDevice(f, 2, SigningKeyBox(), account: account)
        var own = 0
        for _ in 0..<4 { sibling.mail(to: b.publicKey, id: frameID(), [2]); if case .stored = try sibling.next() { own += 1 } }
        #expect(own == 4)
    }

    /// With unseen-recipient-ttl 0, mail to a key no node has seen is refused; once it has
    /// authenticated on one node, mail to it is stored on any.
    @Test func mailToAKeyNoNodeHasSeenCanBeRefused() throws {
        let f = try ClusterFixture(extra: ["--unseen-recipient-ttl", "0ms"])
        defer { f.stop() }
        let (a, _) = try f.device(0)
        let key = SigningKeyBox()
        let id = frameID()
        a.mail(to: key.publicKey, id: id, [1])
        #expect(try a.next() == .mailboxFull(frameID: id))
        #expect(try f.metrics(0).contains("homebase_relay_mail_refused_total{reason=\"unseen-recipient\"} 1"))
        let (b, _) = try f.device(2, key)
        b.close()
        _ = try b.untilClosed()
        var stored = false
        for _ in 0..<100 where !stored { // the seen record lands asynchronously
            let next = frameID()
            a.mail(to: key.publicKey, id: next, [2])
            stored = try a.next() == .stored(frameID: next)
            if !stored { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(stored)
    }
}
