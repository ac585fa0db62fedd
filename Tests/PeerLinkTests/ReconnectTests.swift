import PeerLink
import Signing
import Testing
import Wire

@Suite("reconnects, restarts, dead links")
struct ReconnectTests {
    @Test func reconnectsWithBackoffAfterTheRelayDropsTheConnection() async throws {
        let relay = try ScriptedRelay()
        let loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (a, rec) = try startLink(relay.url, on: loop)
        try await rec.waitConnected()
        relay.dropAll()
        try await rec.waitConnected(count: 2)
        let waits = rec.history.compactMap { if case .waiting(let d) = $0 { d } else { nil } }
        // The first retry: 20 ms initial, jitter 0.5 -> 10...20 ms.
        #expect(waits.first.map { $0 >= .milliseconds(10) && $0 <= .milliseconds(20) } == true)
        #expect(relay.seen.authOK == 2)
        a.stop()
    }

    @Test func aLostLinkIsRetriedFastAtFirstThenLessOftenAsTheOutageGoesOn() async throws {
        let relay = try ScriptedRelay()
        let loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        // No jitter: the delays are exactly the schedule's (fast 10 ms until 20 ms down).
        let (a, rec) = try startLink(relay.url, on: loop) {
            $0.backoff = Backoff(initial: .milliseconds(10), maximum: .seconds(1), jitter: 0, growth: 0.5)
        }
        try await rec.waitConnected()
        relay.stopListening()
        relay.dropAll()  // every reconnect now fails at once
        try await rec.waitFor("the delay to grow with the outage") {
            if case .waiting(let d) = $0 { d > .milliseconds(10) } else { false }
        }
        let waits = rec.history.compactMap { if case .waiting(let d) = $0 { d } else { nil } }
        #expect(waits.first == .milliseconds(10), "\(waits)")  // the first retry is the fast one
        #expect(zip(waits, waits.dropFirst()).allSatisfy { $0 <= $1 }, "\(waits)")  // never shorter again
        a.stop()
    }

    @Test func restartingIsSurfacedThenTheLinkReconnects() async throws {
        let relay = try ScriptedRelay()
        let loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (a, rec) = try startLink(relay.url, on: loop)
        try await rec.waitConnected()
        relay.restart(reconnectAfterMs: 50)
        try await rec.waitFor("restarting") {
            // Never sooner than asked, jittered upward by at most 50 %.
            if case .relayRestarting(let d) = $0 { d >= .milliseconds(50) && d <= .milliseconds(75) } else { false }
        }
        try await rec.waitConnected(count: 2)
        #expect(relay.seen.authOK == 2)
        a.stop()
    }

    @Test func deadLinkIsNoticedByKeepaliveNotTCP() async throws {
        let relay = try ScriptedRelay()
        let loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (a, rec) = try startLink(relay.url, on: loop) {
            $0.pingInterval = .milliseconds(40)
            $0.deadLinkTimeout = .milliseconds(300)
        }
        try await rec.waitConnected()
        relay.update { $0.answerPings = false } // TCP stays up; the relay just goes quiet
        try await rec.waitFor("link declared dead") { if case .waiting = $0 { true } else { false } }
        #expect(relay.seen.pings >= 1)
        relay.update { $0.answerPings = true }
        try await rec.waitConnected(count: 2)
        a.stop()
    }

    @Test func replacedDoesNotReconnectUntilStartedAgain() async throws {
        let relay = try ScriptedRelay()
        let loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let key = SigningKey.generate()
        let (first, rec1) = try startLink(relay.url, on: loop, identity: key)
        try await rec1.waitConnected()
        let (second, rec2) = try startLink(relay.url, on: loop, identity: key)
        try await rec2.waitConnected()
        try await rec1.waitFor("replaced") { $0 == .refused(.replaced, retryIn: nil) }
        #expect(first.state == .refused(.replaced, retryIn: nil))
        second.stop()
        first.start() // the agent decides to take over again
        try await rec1.waitConnected(count: 2)
        first.stop()
    }
}
