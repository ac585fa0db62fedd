@testable import Courier
import PeerLink
import Sealing
import Signing
import Synchronization
import Testing
import Wire

@Suite("messages between two devices through a relay")
struct DeliveryTests {
    @Test func liveMessageRoundTrip() async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (a, b) = try await pair(relay, loop)
        let grant = AppMessage.grant(.init(grantID: id16(1), models: ["tiny"], ratePerMinute: 5, expiresMs: 9))
        #expect(await a.courier.send(grant, to: b.record) == .sent)
        try await eventually("B got it") { b.deliveries.count == 1 }
        let d = try #require(b.deliveries.first)
        #expect(d.message == grant && d.sender == a.record && d.deliveryClass == .live && d.heldMs == 0)
        #expect(d.streamSecret == nil)  // only requests carry one
        // And back.
        let revoke = AppMessage.revoke(.init(grantID: id16(1), reason: "bye"))
        #expect(await b.courier.send(revoke, to: a.record) == .sent)
        try await eventually("A got the answer") { a.messages == [revoke] }
        #expect(a.courier.stats.opened == 1 && b.courier.stats.opened == 1)
        a.courier.stop(); b.courier.stop()
    }

    @Test func mailWaitsForTheRecipientAndIsAckedOnlyByTheConsumer() async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let ia = try identity("guest"), ib = try identity("host")
        let a = try Device(ia, knows: [ib.record], relay: relay, loop: loop)
        try await a.start()
        let choice = AppMessage.modelChoice(.init(modelID: "tiny", vision: false, sequence: 3, originDevice: .zero))
        #expect(try await a.courier.sendMail(choice, to: ib.record, ttl: .seconds(60), collapseKey: [7]) == .stored)
        let b = try Device(ib, knows: [ia.record], relay: relay, loop: loop)
        try await b.start()
        try await eventually("B got the mail and the backlog marker") {
            b.deliveries.count == 1 && b.events.contains(.queueEmpty)
        }
        let d = try #require(b.deliveries.first)
        #expect(d.message == choice && d.deliveryClass == .mail && d.sender == ia.record)
        #expect(try relay.ackedMail() == 0)  // not before the consumer says so
        d.ack()
        try await eventually("the relay saw the ack") { (try? relay.ackedMail()) == 1 }
        a.courier.stop(); b.courier.stop()
    }

    @Test func a200KiBMessageIsSplitIntoPartsAndReassembled() async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (a, b) = try await pair(relay, loop)
        let long = (0..<200).map { i in AppMessage.ChatMessage(role: i % 2 == 0 ? .user : .assistant,
                                                                content: String(repeating: "turn \(i) ", count: 130)) }
        let delta = AppMessage.syncDelta(.init(conversationID: id16(2), basePrefixHash: .zero, appended: long,
                                               resultingPrefixHash: .repeating(9)))
        let size = try delta.encode().count
        let parts = (size + 32_682) / 32_683  // spec: at most 32,683 bytes per part
        #expect(size > 200 * 1024 && parts > 6)
        #expect(await a.courier.send(delta, to: b.record) == .sent)
        try await eventually("B reassembled it") { b.deliveries.count == 1 }
        #expect(b.messages == [delta])
        #expect(b.courier.stats.partsReassembled == 1 && b.courier.stats.opened == parts)
        // As mail too: every part's frame is acked by the one delivery's ack().
        #expect(try await a.courier.sendMail(delta, to: b.record, ttl: .seconds(60), collapseKey: [1, 2]) == .stored)
        try await eventually("mail reassembled") { b.deliveries.count == 2 }
        let mail = b.deliveries[1]
        #expect(mail.message == delta && mail.deliveryClass == .mail)
        mail.ack()
        try await eventually("every part acked") { (try? relay.ackedMail()) == parts }
        a.courier.stop(); b.courier.stop()
    }

    @Test func anIncompleteMessageExpiresAndIsCounted() async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (a, b) = try await pair(relay, loop) { $0.reassembly.timeoutMs = 30 }
        let big = AppMessage.revoke(.init(grantID: id16(3), reason: String(repeating: "x", count: 60_000)))
        let parts = try a.courier.seal(big, to: b.record).map(\.bytes)
        #expect(parts.count == 2)
        _ = await a.sendRaw([parts[0]], to: b.record)  // part 1 is lost on the way
        try await eventually("expired") { b.courier.stats.partsExpired == 1 }
        #expect(b.deliveries.isEmpty)
        #expect(await a.courier.send(big, to: b.record) == .sent)  // the next one is whole
        try await eventually("delivered") { b.messages == [big] }
        a.courier.stop(); b.courier.stop()
    }

    @Test func unknownSenderIsDroppedUnopened() async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (a, b) = try await pair(relay, loop)
        let stranger = try Device(try identity("stranger"), knows: [b.record], relay: relay, loop: loop)
        try await stranger.start()
        let m = AppMessage.cancel(requestID: id16(4))
        #expect(await stranger.courier.send(m, to: b.record) == .sent)
        #expect(await a.courier.send(m, to: b.record) == .sent)  // same link order: after the stranger's
        try await eventually("A's arrived") { b.deliveries.count == 1 }
        #expect(b.deliveries[0].sender == a.record)
        #expect(b.courier.stats.droppedUnknownSender == 1 && b.courier.stats.opened == 1)
        a.courier.stop(); b.courier.stop(); stranger.courier.stop()
    }

    @Test func aReplayedEnvelopeIsRefused() async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (a, b) = try await pair(relay, loop)
        // The relay (or anyone on the path) delivers the same sealed bytes again under new frame ids.
        let m = AppMessage.cancel(requestID: id16(5))
        let sealed = try #require(try a.courier.seal(m, to: b.record).first).bytes
        #expect(await a.sendRaw([sealed, sealed, sealed], to: b.record) == [.sent, .sent, .sent])
        try await eventually("two replays refused") { b.courier.stats.replays == 2 && b.messages.count == 1 }
        #expect(b.messages == [m] && b.courier.stats.opened == 1)
        a.courier.stop(); b.courier.stop()
    }

    @Test func tamperedEnvelopeFailsToOpen() async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (a, b) = try await pair(relay, loop)
        var tampered = try #require(try a.courier.seal(.cancel(requestID: id16(6)), to: b.record).first).bytes
        tampered[tampered.count / 2] ^= 0x01
        #expect(await a.sendRaw([tampered], to: b.record) == [.sent])
        try await eventually("counted") { b.courier.stats.openFailed == 1 }
        #expect(b.deliveries.isEmpty)
        a.courier.stop(); b.courier.stop()
    }

    @Test func anOfflineRecipientIsNotHere() async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (a, _) = try await pair(relay, loop)
        let absent = try identity("asleep").record
        #expect(await a.courier.send(.cancel(requestID: id16(7)), to: absent) == .notHere)
        let (outcome, replies) = await a.courier.sendRequest(request(7), to: absent)
        #expect(outcome == .notHere)
        #expect(try await collect(replies).isEmpty)  // already finished
        a.courier.stop()
    }
}
