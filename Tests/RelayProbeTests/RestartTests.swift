import PeerLink
import Signing
import Testing

/// Relay restarts: `restarting` reaches the links, they come back, mail is neither lost nor doubled.
@Suite("PeerLink across real relay restarts")
struct RestartTests {
    @Test func restartingIsSurfacedThenTheLinkReconnects() async throws {
        let (relay, a) = try await relayWithDevice()
        defer { a.stop(); relay.stop() }
        await relay.shutdown()
        try await eventually("restarting surfaced") {
            a.history.contains { if case .relayRestarting(let d) = $0 { d >= .milliseconds(50) } else { false } }
        }
        #expect(!a.link.state.isConnected)
        try await relay.start()
        try await a.waitConnected(count: 2)
        // The new relay routes to it: a live frame from another device arrives.
        let b = try Device(relay.url)
        defer { b.stop() }
        try await b.waitConnected()
        #expect(await b.link.sendLive(to: a.key, payload: [1]) == .sent)
        try await a.waitFrames(1)
    }

    @Test func mailSentWhileTheRelayIsDownIsDeliveredOnceAfterItReturns() async throws {
        let relay = try LiveRelay()
        defer { relay.stop() }
        let a = try Device(relay.url)
        let b = try Device(relay.url, autoAck: false)
        defer { a.stop(); b.stop() }
        try await a.waitConnected(); try await b.waitConnected()
        await relay.shutdown()
        try await eventually("a is down") { !a.link.state.isConnected }

        // The outbox holds the frame while the relay is away and resends it (same frame id).
        let sending = Task { try await a.link.sendMail(to: b.key, payload: [4, 2], ttl: .seconds(60)) }
        try await Task.sleep(for: .milliseconds(100))
        try await relay.start()
        #expect(try await sending.value == .stored)
        try await b.waitFrames(1)

        // Unacked, it is stored still: restart again, the relay redelivers, B's dedupe drops it.
        await relay.shutdown()
        try await relay.start()
        try await b.waitConnected(count: 3)
        try await eventually("backlog drained after the second restart") { b.queueEmpties >= 3 }
        #expect(b.frames.count == 1)
        #expect(b.frames[0].payload == [4, 2])
    }
}
