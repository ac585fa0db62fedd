import Foundation
import Testing
import Wire
@testable import RelayServer

/// Reads frames until `queue-empty`, returning the `receive`s before it.
func backlog(_ c: TestClient) throws -> [RelayFrame.Receive] {
    var out: [RelayFrame.Receive] = []
    while true {
        switch try c.next() {
        case .queueEmpty: return out
        case .receive(let r): out.append(r)
        case let f: throw TestSetupError("unexpected \(f) in a backlog")
        }
    }
}

/// A fresh device, its backlog read (empty), has mailed `body` to a fresh key and the relay
/// stored it: the sender, the recipient's key and the frame's id.
func storedMail(_ h: RelayHarness, _ body: [UInt8] = [1]) throws -> (sender: TestClient, to: SigningKeyBox, id: Bytes16) {
    let a = try h.device()
    #expect(try backlog(a).isEmpty)
    let bKey = SigningKeyBox(), id = frameID()
    a.mail(to: bKey.publicKey, id: id, body)
    #expect(try a.next() == .stored(frameID: id))
    return (a, bKey, id)
}

@Suite struct MailTests {
    /// Run over both HubPaths: the same body in memory and over real sockets.
    @Test(arguments: HubPath.allCases) func storedThenDeliveredThenAckedIsGone(via path: HubPath) throws {
        let h = try RelayHarness(via: path)
        defer { h.stop() }
        let (a, bKey, id) = try storedMail(h, [1, 2, 3])
        let b = try h.device(bKey)
        let got = try backlog(b)
        #expect(got.map(\.frameID) == [id])
        #expect(got.first?.sealed == [1, 2, 3])
        #expect(got.first?.sender == a.key!.publicKey)
        #expect(got.first?.deliveryClass == .mail)
        b.send(.ack(frameID: id))
        try expectStillWorks(b) // the ack is processed before the pong
        b.close()
        let again = try h.device(bKey)
        #expect(try backlog(again).isEmpty)
        #expect(try h.metric("homebase_relay_mail_total{event=\"acked\"}") == 1)
    }

    @Test func unackedMailIsRedeliveredOnReconnectInOrder() throws {
        let h = try RelayHarness()
        defer { h.stop() }
        let a = try h.device()
        _ = try backlog(a)
        let bKey = SigningKeyBox()
        let ids = (0..<5).map { _ in frameID() }
        for id in ids { a.mail(to: bKey.publicKey, id: id, [7]); #expect(try a.next() == .stored(frameID: id)) }
        let b1 = try h.device(bKey)
        #expect(try backlog(b1).map(\.frameID) == ids)
        b1.send(.ack(frameID: ids[0]))
        try expectStillWorks(b1)
        let b2 = try h.device(bKey) // replaces b1
        #expect(try backlog(b2).map(\.frameID) == Array(ids.dropFirst()))
    }

    /// Run over both HubPaths: the same body in memory and over real sockets.
    @Test(arguments: HubPath.allCases) func mailToConnectedRecipientArrivesAtOnce(via path: HubPath) throws {
        let h = try RelayHarness(via: path)
        defer { h.stop() }
        let a = try h.device(), b = try h.device()
        _ = try backlog(a); _ = try backlog(b)
        let id = frameID()
        a.mail(to: b.key!.publicKey, id: id, [4])
        #expect(try a.next() == .stored(frameID: id))
        guard case .receive(let r) = try b.next() else { Issue.record("not delivered"); return }
        #expect(r.frameID == id && r.deliveryClass == .mail)
    }

    @Test func collapseKeyKeepsOnlyTheNewest() throws {
        let h = try RelayHarness()
        defer { h.stop() }
        let a = try h.device()
        _ = try backlog(a)
        let bKey = SigningKeyBox()
        let ids = (0..<3).map { _ in frameID() }
        for (i, id) in ids.enumerated() {
            a.mail(to: bKey.publicKey, id: id, collapse: Array("advert".utf8), [UInt8(i)])
            #expect(try a.next() == .stored(frameID: id))
        }
        let other = frameID()
        a.mail(to: bKey.publicKey, id: other, collapse: Array("grant".utf8), [9])
        #expect(try a.next() == .stored(frameID: other))
        let b = try h.device(bKey)
        let got = try backlog(b)
        #expect(got.map(\.frameID) == [ids[2], other])
        #expect(got.first?.sealed == [2])
    }

    @Test func expiredMailIsSweptAndNeverDelivered() throws {
        let h = try RelayHarness { $0.sweepInterval = .milliseconds(50) }
        defer { h.stop() }
        let a = try h.device()
        _ = try backlog(a)
        let bKey = SigningKeyBox()
        let short = frameID(), long = frameID()
        a.mail(to: bKey.publicKey, id: short, ttl: 1, [1])
        a.mail(to: bKey.publicKey, id: long, ttl: 3600, [2])
        #expect(try a.next() == .stored(frameID: short))
        #expect(try a.next() == .stored(frameID: long))
        // Poll the counter (no timing assertion): the sweep deletes it once its second has passed.
        while try h.metric("homebase_relay_mail_total{event=\"expired\"}") < 1 { usleep(50_000) }
        let b = try h.device(bKey)
        #expect(try backlog(b).map(\.frameID) == [long])
    }

    @Test func capsAnswerMailboxFull() throws {
        let h = try RelayHarness { $0.mailboxMaxFrames = 2; $0.mailboxMaxBytes = 1000 }
        defer { h.stop() }
        let a = try h.device()
        _ = try backlog(a)
        let b = SigningKeyBox().publicKey, c = SigningKeyBox().publicKey
        let ids = (0..<3).map { _ in frameID() }
        for id in ids { a.mail(to: b, id: id, [1]) }
        #expect(try a.next() == .stored(frameID: ids[0]))
        #expect(try a.next() == .stored(frameID: ids[1]))
        #expect(try a.next() == .mailboxFull(frameID: ids[2]))
        // Bytes cap, for another recipient.
        let big = frameID()
        a.mail(to: c, id: big, Array(repeating: 0, count: 1001))
        #expect(try a.next() == .mailboxFull(frameID: big))
    }

    /// Run over both HubPaths: the same body in memory and over real sockets.
    @Test(arguments: HubPath.allCases) func resentFrameIsStoredOnce(via path: HubPath) throws {
        let h = try RelayHarness(via: path)
        defer { h.stop() }
        let a = try h.device()
        _ = try backlog(a)
        let bKey = SigningKeyBox(), id = frameID()
        a.mail(to: bKey.publicKey, id: id, [1])
        a.mail(to: bKey.publicKey, id: id, [1])
        #expect(try a.next() == .stored(frameID: id))
        #expect(try a.next() == .stored(frameID: id))
        #expect(try backlog(try h.device(bKey)).count == 1)
    }

    @Test func heldTimeIsReportedForMailThatWaited() throws {
        let h = try RelayHarness()
        defer { h.stop() }
        let (a, bKey, _) = try storedMail(h)
        defer { a.close() }
        usleep(30_000) // the frame waits; the assertion is on the report, not on speed
        let got = try backlog(try h.device(bKey))
        #expect((got.first?.heldMs ?? 0) > 0)
    }

    @Test func aDeviceCannotReceiveOrAckAnotherKeysMail() throws {
        let h = try RelayHarness()
        defer { h.stop() }
        let (a, bKey, id) = try storedMail(h)
        let mallory = try h.device()
        #expect(try backlog(mallory).isEmpty)
        mallory.send(.ack(frameID: id)) // an ack for someone else's frame does nothing
        try expectStillWorks(mallory)
        a.send(.ack(frameID: id)) // nor does the sender's
        try expectStillWorks(a)
        #expect(try backlog(try h.device(bKey)).map(\.frameID) == [id])
    }

    @Test func largeBacklogIsPacedThroughTheQueueAndEndsWithQueueEmpty() throws {
        let h = try RelayHarness { $0.sendQueueFrames = 4 }
        defer { h.stop() }
        let a = try h.device()
        _ = try backlog(a)
        let bKey = SigningKeyBox()
        let ids = (0..<40).map { _ in frameID() }
        for id in ids { a.mail(to: bKey.publicKey, id: id, Array(repeating: 1, count: 30_000)) }
        for id in ids { #expect(try a.next() == .stored(frameID: id)) }
        #expect(try backlog(try h.device(bKey)).map(\.frameID) == ids)
    }
}
