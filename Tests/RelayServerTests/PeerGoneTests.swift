import Glibc
import Testing
import Wire
@testable import RelayServer

/// Frames up to the pong of a fresh ping: everything the relay sent this client before it
/// handled the ping (the relay answers a connection's frames in order).
func framesUntilMarker(_ c: TestClient) throws -> [RelayFrame] {
    let v = UInt64.random(in: 1...UInt64.max)
    c.send(.ping(v))
    var seen: [RelayFrame] = []
    while true {
        let f = try c.next()
        if f == .pong(v) { return seen }
        seen.append(f)
    }
}

/// Reads frames until `want` matches one (a close or the hang guard is an error).
func awaitFrame(_ c: TestClient, _ what: String, _ want: (RelayFrame) -> Bool) throws -> [RelayFrame] {
    var seen: [RelayFrame] = []
    while true {
        guard case .frame(let f) = try c.event() else { throw TestSetupError("closed while waiting for \(what); saw \(seen)") }
        seen.append(f)
        if want(f) { return seen }
    }
}

func isGone(_ key: Bytes32, _ reason: PeerGoneReason) -> (RelayFrame) -> Bool {
    { $0 == .peerGone(.init(peer: key, reason: reason)) }
}

@Suite struct PeerGoneTests {
    /// The one who sent to a device that then closes hears `peer-gone closed`; a device that
    /// never exchanged a frame with it hears nothing.
    @Test func senderHearsWhenRecipientCloses() throws {
        let h = try RelayHarness()
        defer { h.stop() }
        let a = try h.device(), b = try h.device(), bystander = try h.device()
        for c in [a, b, bystander] { #expect(try c.next() == .queueEmpty) }
        try exchange(from: a, to: b, [1])
        b.close()
        _ = try awaitFrame(a, "peer-gone", isGone(b.key!.publicKey, .closed))
        #expect(try framesUntilMarker(bystander).isEmpty)
        #expect(try h.metric("homebase_relay_peer_gone_total{reason=\"closed\"}") == 1)
    }

    /// A device that only received from the leaver (a guest reading a Homebase's stream) hears it too.
    @Test func receiverHearsWhenSenderCloses() throws {
        let h = try RelayHarness()
        defer { h.stop() }
        let host = try h.device(), guest = try h.device()
        for c in [host, guest] { #expect(try c.next() == .queueEmpty) }
        host.live(to: guest.key!.publicKey, id: frameID(), [7])
        guard case .receive = try guest.next() else { Issue.record("not forwarded"); return }
        host.close()
        _ = try awaitFrame(guest, "peer-gone", isGone(host.key!.publicKey, .closed))
    }

    @Test func replacedConnectionIsAnnouncedAsReplaced() throws {
        let h = try RelayHarness()
        defer { h.stop() }
        let key = SigningKeyBox()
        let a = try h.device(), old = try h.device(key)
        for c in [a, old] { #expect(try c.next() == .queueEmpty) }
        a.live(to: key.publicKey, id: frameID(), [1])
        guard case .receive = try old.next() else { Issue.record("not forwarded"); return }
        let new = try h.device(key)
        _ = try awaitFrame(a, "peer-gone", isGone(key.publicKey, .replaced))
        #expect(try new.next() == .queueEmpty)
    }

    /// A slow reader has frames of the leaver still queued at the relay: `peer-gone` comes after
    /// them (a `done` sent just before leaving must not be overtaken by the news of leaving).
    @Test func peerGoneComesAfterTheFramesQueuedBeforeIt() throws {
        let h = try RelayHarness { $0.sendQueueFrames = 64; $0.socketBufferBytes = 64 * 1024; $0.rate = 1e6; $0.burst = 1e6 }
        defer { h.stop() }
        let host = try h.device(), guest = try h.device()
        for c in [host, guest] { #expect(try c.next() == .queueEmpty) }
        let ws = guest.ws
        try h.clients.sync { ws.connection.pauseReading() }
        let payload = Array(repeating: UInt8(0x5A), count: 60_000)
        for _ in 0..<200 { host.live(to: guest.key!.publicKey, id: frameID(), payload) }
        _ = try framesUntilMarker(host)  // the relay has handled every frame (some were dropped)
        #expect(try h.onRelay { $0.hub.byKey[guest.key!.publicKey]?.queue.count ?? 0 } > 0)
        host.close()
        try waitUntilUnrouted(h, host.key!.publicKey)
        try h.clients.sync { ws.connection.resumeReading() }
        let seen = try awaitFrame(guest, "peer-gone", isGone(host.key!.publicKey, .closed))
        #expect(seen.filter { if case .receive = $0 { true } else { false } }.count > 64)
        // Nothing of the leaver's after the news that it left.
        #expect(!(try framesUntilMarker(guest)).contains { if case .receive = $0 { true } else { false } })
    }

    /// Only exchanges within the window count.
    @Test func oldExchangesAreNotAnnounced() throws {
        let h = try RelayHarness { $0.peerGoneWindow = .milliseconds(20) }
        defer { h.stop() }
        let (a, b) = try h.twoDevices()
        try exchange(from: a, to: b, [1])
        try sleepMs(200)
        b.close()
        // The close is seen by the relay before a's marker only if it is processed first: make
        // sure by waiting for b's route to go.
        try waitUntilUnrouted(h, b.key!.publicKey)
        #expect(try framesUntilMarker(a).isEmpty)
    }

    /// At `peer-gone-memory` the correspondent heard from longest ago is forgotten.
    @Test func memoryIsBoundedPerConnection() throws {
        let h = try RelayHarness { $0.peerGoneMemory = 2 }
        defer { h.stop() }
        let b = try h.device(), s1 = try h.device(), s2 = try h.device(), s3 = try h.device()
        for c in [b, s1, s2, s3] { #expect(try c.next() == .queueEmpty) }
        for s in [s1, s2, s3] {
            s.live(to: b.key!.publicKey, id: frameID(), [1])
            guard case .receive = try b.next() else { Issue.record("not forwarded"); return }
        }
        b.close()
        _ = try awaitFrame(s3, "peer-gone", isGone(b.key!.publicKey, .closed))
        _ = try awaitFrame(s2, "peer-gone", isGone(b.key!.publicKey, .closed))
        #expect(try framesUntilMarker(s1).isEmpty)
    }

    @Test func correspondentsForgetTheOldestAtCapacity() {
        var c = Correspondents()
        let k1 = Bytes32.repeating(1), k2 = Bytes32.repeating(2), k3 = Bytes32.repeating(3)
        c.note(k1, now: 10, capacity: 2)
        c.note(k2, now: 20, capacity: 2)
        c.note(k1, now: 30, capacity: 2)  // k1 heard again: k2 is now the oldest
        c.note(k3, now: 40, capacity: 2)
        #expect(Set(c.last.keys) == [k1, k3])
        #expect(Set(c.recent(now: 45, window: 10)) == [k3])
    }

    /// The key noted last is stamped aside (no hashing per frame): `recent` and eviction still
    /// see its latest time.
    @Test func correspondentsSeeTheLatestTimeOfTheKeyNotedLast() {
        var c = Correspondents()
        let k1 = Bytes32.repeating(1), k2 = Bytes32.repeating(2), k3 = Bytes32.repeating(3)
        c.note(k1, now: 10, capacity: 2)
        c.note(k2, now: 20, capacity: 2)
        c.note(k2, now: 100, capacity: 2) // only the aside stamp moves
        #expect(Set(c.recent(now: 105, window: 10)) == [k2])
        c.note(k3, now: 110, capacity: 2) // k1 (10) is the oldest, not k2 (100)
        #expect(Set(c.last.keys) == [k2, k3])
        #expect(Set(c.recent(now: 115, window: 20)) == [k2, k3])
    }

    /// Relay settings by name: the new ones parse and check each other.
    @Test func settingsParseAndValidate() throws {
        var c = RelayConfig()
        for (key, value) in [("probe-after", "1s"), ("probe-timeout", "750ms"), ("peer-gone-window", "60s"),
                             ("peer-gone-memory", "0"), ("tcp-user-timeout", "10s")] {
            guard let s = Settings.named(key) else { Issue.record("no setting \(key)"); continue }
            #expect(s.apply(&c, value))
        }
        #expect(c.peerGoneMemory == 0 && c.probeTimeout == .milliseconds(750))
        c.probeTimeout = .zero
        #expect(throws: RelayError.self) { try c.validate() }
    }
}

func sleepMs(_ ms: Int) throws {
    var ts = timespec(tv_sec: ms / 1000, tv_nsec: (ms % 1000) * 1_000_000)
    _ = nanosleep(&ts, nil)
}

/// Waits (hang guard only) until the relay no longer routes `key`.
func waitUntilUnrouted(_ h: RelayHarness, _ key: Bytes32) throws {
    for _ in 0..<2000 {
        if try h.onRelay({ $0.hub.byKey[key] == nil }) { return }
        try sleepMs(10)
    }
    throw TestSetupError("\(key) still routed")
}
