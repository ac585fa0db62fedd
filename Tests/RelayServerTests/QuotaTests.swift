import Foundation
import Testing
import Wire
@testable import RelayServer

/// Mailbox quotas on a REAL relay: what one sender, one address or the whole relay may store.
@Suite struct QuotaTests {
    /// A recipient that authenticated once (mail to it is kept for its full TTL).
    func seenKey(_ h: RelayHarness) throws -> SigningKeyBox {
        let k = SigningKeyBox()
        let c = try h.device(k)
        _ = try backlog(c)
        c.close()
        _ = try c.untilClosed()
        return k
    }

    /// One sender fills only its share of a recipient's mailbox: another sender still gets mail
    /// in, and a collapse-keyed frame replacing the sender's own is still admitted.
    @Test func oneSenderCannotFillARecipientsMailbox() throws {
        let h = try RelayHarness { c in c.mailboxMaxFrames = 10; c.limits.mailboxSenderFrames = 4 }
        defer { h.stop() }
        let b = try seenKey(h)
        let a = try h.device()
        _ = try backlog(a)
        a.mail(to: b.publicKey, id: frameID(), collapse: Array("advert".utf8), [0])
        guard case .stored = try a.next() else { Issue.record("first frame refused"); return }
        var answers: [RelayFrame] = []
        for i in 0..<9 {
            let id = frameID()
            a.mail(to: b.publicKey, id: id, [UInt8(i)])
            answers.append(try a.next())
        }
        #expect(answers.filter { if case .stored = $0 { true } else { false } }.count == 3)
        #expect(answers.filter { if case .mailboxFull = $0 { true } else { false } }.count == 6)
        let replacing = frameID()
        a.mail(to: b.publicKey, id: replacing, collapse: Array("advert".utf8), [9])
        #expect(try a.next() == .stored(frameID: replacing))
        let other = try h.device()
        _ = try backlog(other)
        let id = frameID()
        other.mail(to: b.publicKey, id: id, [1])
        #expect(try other.next() == .stored(frameID: id))
        #expect(try h.metric("homebase_relay_mail_refused_total{reason=\"sender-share\"}") == 6)
    }

    /// Over the disk budget mail is refused, counted with its reason, and live frames still flow.
    @Test func diskBudgetRefusesMailAndLiveFramesFlow() throws {
        let h = try RelayHarness { c in c.limits.mailDiskBudget = 1_000 }
        defer { h.stop() }
        let b = try seenKey(h)
        let a = try h.device(), live = try h.device()
        _ = try backlog(a); _ = try backlog(live)
        var answers: [RelayFrame] = []
        for _ in 0..<3 {
            a.mail(to: b.publicKey, id: frameID(), [UInt8](repeating: 7, count: 400))
            answers.append(try a.next())
        }
        guard case .mailboxFull = answers[2] else { Issue.record("the third frame passed the budget: \(answers)"); return }
        #expect(try h.metric("homebase_relay_mail_refused_total{reason=\"disk-budget\"}") == 1)
        let id = frameID()
        a.live(to: live.key!.publicKey, id: id, [1, 2, 3])
        guard case .receive(let r) = try live.next() else { Issue.record("live frame lost"); return }
        #expect(r.frameID == id && r.sealed == [1, 2, 3])
    }

    /// Per sender key across recipients, and per source address across senders.
    @Test func senderAndAddressQuotasHoldAcrossRecipients() throws {
        let h = try RelayHarness { c in c.limits.senderMailFrames = 3; c.limits.ipMailFrames = 5 }
        defer { h.stop() }
        let recipients = try (0..<4).map { _ in try seenKey(h) }
        let a = try h.device()
        _ = try backlog(a)
        var stored = 0
        for r in recipients { a.mail(to: r.publicKey, id: frameID(), [1]); if case .stored = try a.next() { stored += 1 } }
        #expect(stored == 3)
        let b = try h.device() // same address (127.0.0.1), new key: 2 more fit the address quota
        _ = try backlog(b)
        stored = 0
        for r in recipients { b.mail(to: r.publicKey, id: frameID(), [1]); if case .stored = try b.next() { stored += 1 } }
        #expect(stored == 2)
        #expect(try h.metric("homebase_relay_mail_refused_total{reason=\"sender-quota\"}") == 1)
        #expect(try h.metric("homebase_relay_mail_refused_total{reason=\"ip-quota\"}") == 2)
    }

    /// Mail to a key that never authenticated here: refused when unseen-recipient-ttl is 0.
    @Test func mailToNeverSeenKeysCanBeRefused() throws {
        let h = try RelayHarness { c in c.limits.unseenRecipientTTL = .zero }
        defer { h.stop() }
        let a = try h.device()
        _ = try backlog(a)
        let id = frameID()
        a.mail(to: SigningKeyBox().publicKey, id: id, [1])
        #expect(try a.next() == .mailboxFull(frameID: id))
        let seen = try seenKey(h), id2 = frameID()
        a.mail(to: seen.publicKey, id: id2, [1])
        #expect(try a.next() == .stored(frameID: id2))
        #expect(try h.metric("homebase_relay_mail_refused_total{reason=\"unseen-recipient\"}") == 1)
    }

    /// Strangers (each within its share) stop short of the room reserved for the recipient's own
    /// account; a sibling device with a proof of the same account key still gets mail in.
    @Test func strangersLeaveRoomForTheRecipientsOwnAccount() throws {
        let h = try RelayHarness { c in c.mailboxMaxFrames = 10; c.limits.mailboxOwnReserveFrames = 4 }
        defer { h.stop() }
        let account = SigningKeyBox()
        func accountDevice(_ k: SigningKeyBox) throws -> TestClient {
            let c = try TestClient.connect(loop: h.clients.loop, port: h.port)
            try c.authenticate(key: k, origin: h.origin, account: account)
            guard case .authOK = try c.next() else { throw TestSetupError("no auth-ok") }
            _ = try backlog(c)
            return c
        }
        let b = SigningKeyBox()
        let first = try accountDevice(b)
        first.close()
        _ = try first.untilClosed()
        var stored = 0
        for _ in 0..<3 {
            let stranger = try h.device()
            _ = try backlog(stranger)
            for _ in 0..<4 { stranger.mail(to: b.publicKey, id: frameID(), [1]); if case .stored = try stranger.next() { stored += 1 } }
        }
        #expect(stored == 6)
        let sibling = try accountDevice(SigningKeyBox())
        var own = 0
        for _ in 0..<4 { sibling.mail(to: b.publicKey, id: frameID(), [2]); if case .stored = try sibling.next() { own += 1 } }
        #expect(own == 4)
    }
}
