import PeerLink
import Signing
import Testing
import Wire

/// PeerLink's key behaviours against the REAL relay (RelayServer in process), not a script.
@Suite("PeerLink against the real relay")
struct PeerLinkOnRelayTests {
    @Test func authenticatesAndLearnsTheRelaysLimits() async throws {
        let relay = try LiveRelay { $0.mailboxMaxFrames = 77 }
        defer { relay.stop() }
        let a = try Device(relay.url)
        defer { a.stop() }
        try await a.waitConnected()
        guard case .connected(let ok) = a.link.state else { Issue.record("not connected: \(a.link.state)"); return }
        #expect(ok.mailboxCapacity == 77)
        // A fresh device has an empty mailbox: the backlog marker comes at once.
        try await eventually("queue-empty") { a.queueEmpties == 1 }
    }

    @Test func liveFrameIsDeliveredWithTheSendersKey() async throws {
        let relay = try LiveRelay()
        defer { relay.stop() }
        let a = try Device(relay.url), b = try Device(relay.url)
        defer { a.stop(); b.stop() }
        try await a.waitConnected(); try await b.waitConnected()
        let outcome = await a.link.sendLive(to: b.key, payload: [1, 2, 3])
        #expect(outcome == .sent)
        try await b.waitFrames(1)
        let f = b.frames[0]
        #expect(f.sender == a.key)
        #expect(f.deliveryClass == .live)
        #expect(f.payload == [1, 2, 3])
        #expect(f.heldMs == 0)
    }

    @Test func liveFrameToAnOfflineDeviceIsNotHere() async throws {
        let (relay, a) = try await relayWithDevice()
        defer { a.stop(); relay.stop() }
        let outcome = await a.link.sendLive(to: SigningKey.generate().publicKey, payload: [9])
        #expect(outcome == .notHere)
    }

    @Test func mailIsStoredThenDeliveredThenAckedAway() async throws {
        let (relay, a) = try await relayWithDevice()
        defer { a.stop(); relay.stop() }
        let bKey = SigningKey.generate()
        let stored = try await a.link.sendMail(to: bKey.publicKey, payload: [7, 7], ttl: .seconds(60))
        #expect(stored == .stored)

        let b = try Device(relay.url, identity: bKey) // acks each frame as it arrives
        try await b.waitFrames(1)
        try await eventually("queue-empty after the backlog") { b.queueEmpties == 1 }
        #expect(b.frames[0].sender == a.key)
        #expect(b.frames[0].deliveryClass == .mail)
        #expect(b.frames[0].payload == [7, 7])
        b.stop()

        // Acked means deleted: the same device, connecting again, finds an empty mailbox.
        // (The ack goes out before the stop; the barrier is the relay's in-order processing.)
        let again = try Device(relay.url, identity: bKey)
        defer { again.stop() }
        try await eventually("queue-empty on the second connection") { again.queueEmpties == 1 }
        #expect(again.frames.isEmpty)
    }

    @Test func unackedMailComesAgainOnReconnect() async throws {
        let (relay, a) = try await relayWithDevice()
        defer { a.stop(); relay.stop() }
        let bKey = SigningKey.generate()
        #expect(try await a.link.sendMail(to: bKey.publicKey, payload: [5], ttl: .seconds(60)) == .stored)
        let b = try Device(relay.url, identity: bKey, autoAck: false)
        try await b.waitFrames(1)
        b.stop()
        let again = try Device(relay.url, identity: bKey, autoAck: false)
        defer { again.stop() }
        try await again.waitFrames(1)
        #expect(again.frames[0].frameID == b.frames[0].frameID)
    }
}
