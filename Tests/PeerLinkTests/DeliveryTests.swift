import PeerLink
import Signing
import Testing
import Synchronization
import Wire

@Suite("live and mail delivery through the scripted relay")
struct DeliveryTests {
    @Test func liveFrameDeliveredBetweenTwoLinks() async throws {
        let relay = try ScriptedRelay()
        let loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (a, b, recB) = try await connectedPair(relay, on: loop)
        let outcome = await a.sendLive(to: b.deviceKey, payload: [1, 2, 3])
        #expect(outcome == .sent)
        try await eventually("B got the live frame") { recB.frames.count == 1 }
        let f = try #require(recB.frames.first)
        #expect(f.sender == a.deviceKey && f.payload == [1, 2, 3] && f.deliveryClass == .live && f.heldMs == 0)
        b.ack(f) // live is never acked: this must send nothing
        _ = await a.sendLive(to: b.deviceKey, payload: [4]) // a round trip after the ack call
        try await eventually("second frame") { recB.frames.count == 2 }
        #expect(relay.seen.acks.isEmpty)
        a.stop(); b.stop()
    }

    @Test func streamOfFireAndForgetFramesArrivesInOrder() async throws {
        let relay = try ScriptedRelay()
        let loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (a, b, recB) = try await connectedPair(relay, on: loop)
        let outcomes = OutcomeLog()
        for i in 0..<200 { a.sendLive(to: b.deviceKey, payload: [UInt8(i)]) { outcomes.add($0) } }
        try await eventually("200 frames") { recB.frames.count == 200 }
        #expect(recB.frames.map { $0.payload[0] } == (0..<200).map(UInt8.init))
        try await eventually("200 outcomes") { outcomes.all.count == 200 }
        #expect(outcomes.all.allSatisfy { $0 == .sent })
        a.stop(); b.stop()
    }

    @Test func liveToAnAbsentDeviceIsNotHere() async throws {
        let relay = try ScriptedRelay()
        let loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (a, _) = try await connectedLink(relay, on: loop)
        #expect(await a.sendLive(to: SigningKey.generate().publicKey, payload: [9]) == .notHere)
        a.stop()
    }

    @Test func liveIsSentOnlyOnceTheRelayAnswersTheBarrierPing() async throws {
        let relay = try ScriptedRelay()
        let loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (a, recA) = try startLink(relay.url, on: loop) {
            $0.liveTimeout = .milliseconds(100)
            $0.pingInterval = .seconds(60)
            $0.deadLinkTimeout = .seconds(60)
        }
        let (b, recB) = try startLink(relay.url, on: loop)
        try await recA.waitConnected()
        try await recB.waitConnected()
        relay.update { $0.answerPings = false }
        // Forwarded, but the relay never confirms: the outcome is unknown, not `.sent`.
        #expect(await a.sendLive(to: b.deviceKey, payload: [1]) == .failed(.timeout))
        try await eventually("B got it anyway") { recB.frames.count == 1 }
        relay.update { $0.answerPings = true }
        #expect(await a.sendLive(to: b.deviceKey, payload: [2]) == .sent)
        a.stop(); b.stop()
    }

    @Test func liveFailsAtOnceWhenTheLinkIsDown() async throws {
        let relay = try ScriptedRelay()
        let loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        // A long backoff: had sendLive waited for a reconnect, this test would hang.
        let (a, recA) = try startLink(relay.url, on: loop) {
            $0.backoff = Backoff(initial: .seconds(600), maximum: .seconds(600), jitter: 0)
        }
        try await recA.waitConnected()
        relay.stopListening()
        relay.dropAll()
        try await recA.waitFor("waiting") { if case .waiting = $0 { true } else { false } }
        #expect(await a.sendLive(to: SigningKey.generate().publicKey, payload: [1]) == .failed(.linkDown))
        let viaCallback = OutcomeLog()
        a.sendLive(to: SigningKey.generate().publicKey, payload: [2]) { viaCallback.add($0) }
        try await eventually("callback outcome") { viaCallback.all.count == 1 }
        #expect(viaCallback.all == [.failed(.linkDown)])
        a.stop()
        #expect(await a.sendLive(to: SigningKey.generate().publicKey, payload: [3]) == .failed(.stopped))
    }

    @Test func mailStoredThenDeliveredOnConnectAndAcked() async throws {
        let relay = try ScriptedRelay()
        let loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (a, _) = try await connectedLink(relay, on: loop)
        let bKey = SigningKey.generate()
        let outcome = try await a.sendMail(to: bKey.publicKey, payload: [7, 7], ttl: .seconds(60))
        #expect(outcome == .stored)
        let (b, recB) = try startLink(relay.url, on: loop, identity: bKey)
        try await eventually("backlog then queue-empty") { recB.queueEmpties == 1 }
        let f = try #require(recB.frames.first)
        #expect(f.deliveryClass == .mail && f.payload == [7, 7] && f.sender == a.deviceKey)
        #expect(relay.seen.acks.isEmpty) // not acked until the consumer says so
        b.ack(f)
        try await eventually("ack at the relay") { relay.seen.acks == [f.frameID] }
        a.stop(); b.stop()
    }

    @Test func mailboxFullIsAnOutcome() async throws {
        let relay = try ScriptedRelay()
        relay.update { $0.mailboxCapacity = 0 }
        let loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (a, _) = try await connectedLink(relay, on: loop)
        #expect(try await a.sendMail(to: SigningKey.generate().publicKey, payload: [1], ttl: .seconds(5)) == .mailboxFull)
        await #expect(throws: PeerLinkError.tooLarge(field: "collapse key", length: 65, limit: 64)) {
            _ = try await a.sendMail(to: a.deviceKey, payload: [], ttl: .seconds(5), collapseKey: Array(repeating: 1, count: 65))
        }
        await #expect(throws: PeerLinkError.invalidTTL) {
            _ = try await a.sendMail(to: a.deviceKey, payload: [], ttl: .zero)
        }
        a.stop()
    }

    @Test func mailIsResentAfterReconnectUntilStored() async throws {
        let relay = try ScriptedRelay()
        relay.update { $0.storeMail = false } // the first connection swallows mail
        let loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (a, recA) = try await connectedLink(relay, on: loop)
        let result = Task { try await a.sendMail(to: SigningKey.generate().publicKey, payload: [5], ttl: .seconds(60)) }
        try await eventually("first send seen") { relay.seen.sends.count == 1 }
        relay.update { $0.storeMail = true }
        relay.dropAll()
        #expect(try await result.value == .stored)
        let sends = relay.seen.sends
        #expect(sends.count == 2 && sends[0] == sends[1]) // resent with the same frame id
        #expect(recA.connections == 2)
        a.stop()
    }

    @Test func mailWaitingInTheOutboxFailsWhenStopped() async throws {
        let relay = try ScriptedRelay()
        relay.update { $0.storeMail = false }
        let loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (a, _) = try await connectedLink(relay, on: loop)
        let result = Task { try await a.sendMail(to: SigningKey.generate().publicKey, payload: [5], ttl: .seconds(60)) }
        try await eventually("send seen") { relay.seen.sends.count == 1 }
        a.stop()
        await #expect(throws: PeerLinkError.stopped) { try await result.value }
    }

    @Test func duplicatesAreNotYieldedTwiceAndAckedAgainOnceAcked() async throws {
        let relay = try ScriptedRelay()
        relay.update { $0.deliverTwice = true }
        let loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (a, b, recB) = try await connectedPair(relay, on: loop)
        #expect(try await a.sendMail(to: b.deviceKey, payload: [42], ttl: .seconds(60)) == .stored)
        try await eventually("one frame") { recB.frames.count == 1 }
        // The duplicate arrived right behind it; a live round trip proves B has processed it.
        #expect(await b.sendLive(to: a.deviceKey, payload: [0]) == .sent)
        #expect(recB.frames.count == 1)
        #expect(relay.seen.acks.isEmpty) // held by the consumer: a duplicate is not acked for it
        let f = recB.frames[0]
        b.ack(f)
        try await eventually("first ack") { relay.seen.acks.count == 1 }
        relay.redeliver(f.frameID) // as if the relay lost our ack
        try await eventually("acked again") { relay.seen.acks == [f.frameID, f.frameID] }
        #expect(recB.frames.count == 1)
        a.stop(); b.stop()
    }
}

/// Live outcomes heard through the fire-and-forget callback.
final class OutcomeLog: Sendable {
    private let items = Synchronization.Mutex<[LiveOutcome]>([])
    func add(_ o: LiveOutcome) { items.withLock { $0.append(o) } }
    var all: [LiveOutcome] { items.withLock { $0 } }
}
