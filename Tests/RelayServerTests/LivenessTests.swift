import Testing
import Wire
@testable import RelayServer

/// The relay's idle deadline and its liveness probe. Short configured timeouts; the tests check
/// outcomes (closed, not-here, peer-gone), never how long anything took.
@Suite struct LivenessTests {
    /// A relay whose probe waits `after` of quiet and `timeout` for the pong; its idle deadline
    /// and ping sweep an hour away, so only the probe closes anything.
    static func probing(after: Duration, timeout: Duration) throws -> RelayHarness {
        try RelayHarness {
            $0.probeAfter = after; $0.probeTimeout = timeout
            $0.idleTimeout = .seconds(3600); $0.pingInterval = .seconds(3600)
        }
    }

    /// Each connection has its own idle deadline: with the ping sweep an hour away, a device that
    /// sends nothing is still closed with `idle-timeout` (the old sweep-only check never ran).
    @Test func idleDeviceIsClosedByItsOwnDeadline() throws {
        let h = try RelayHarness { $0.idleTimeout = .milliseconds(300); $0.pingInterval = .seconds(3600) }
        defer { h.stop() }
        let quiet = try h.device()
        let (frames, _) = try quiet.untilClosed()
        #expect(frames.contains { if case .error(let e) = $0 { e.code == .idleTimeout } else { false } })
    }

    /// A device heard from keeps its connection past the idle timeout (the deadline re-arms).
    @Test func deviceHeardFromStaysOpen() throws {
        let h = try RelayHarness { $0.idleTimeout = .milliseconds(300); $0.pingInterval = .seconds(3600) }
        defer { h.stop() }
        let chatty = try h.device()
        #expect(try chatty.next() == .queueEmpty)
        for _ in 0..<8 {
            try sleepMs(100)
            try expectStillWorks(chatty)
        }
    }

    /// A live frame for a device that stopped reading (frozen, partitioned): the relay pings it,
    /// no pong comes, the device is closed as silent and the sender hears `not-here` for the
    /// frame and `peer-gone silent`.
    @Test func unansweredProbeClosesTheRecipient() throws {
        let h = try Self.probing(after: .milliseconds(50), timeout: .milliseconds(200))
        defer { h.stop() }
        let (a, frozen) = try h.twoDevices()
        let ws = frozen.ws
        try h.clients.sync { ws.connection.pauseReading() }
        try sleepMs(150)  // quiet for longer than probe-after
        let id = frameID()
        a.live(to: frozen.key!.publicKey, id: id, [1, 2, 3])
        var seen = try awaitFrame(a, "not-here") { $0 == .notHere(frameID: id) }
        if !seen.contains(where: isGone(frozen.key!.publicKey, .silent)) {
            seen += try awaitFrame(a, "peer-gone", isGone(frozen.key!.publicKey, .silent))
        }
        try waitUntilUnrouted(h, frozen.key!.publicKey)
        #expect(try h.metric("homebase_relay_liveness_probes_total{outcome=\"unanswered\"}") == 1)
        // The next frame for it is not-here at once: it is no longer connected.
        let next = frameID()
        a.live(to: frozen.key!.publicKey, id: next, [4])
        #expect(try framesUntilMarker(a) == [.notHere(frameID: next)])
    }

    /// A device heard from a moment ago freezes and a frame comes for it: the probe waits until
    /// it has been quiet for probe-after, then pings; still no answer closes it.
    @Test func aRecentlyHeardDeviceThatFreezesIsProbedOnceQuietLongEnough() throws {
        let h = try Self.probing(after: .milliseconds(300), timeout: .milliseconds(200))
        defer { h.stop() }
        let (a, frozen) = try h.twoDevices()
        let ws = frozen.ws
        try expectStillWorks(frozen)  // heard from just now
        try h.clients.sync { ws.connection.pauseReading() }
        let id = frameID()
        a.live(to: frozen.key!.publicKey, id: id, [1])
        _ = try awaitFrame(a, "not-here") { $0 == .notHere(frameID: id) }
        try waitUntilUnrouted(h, frozen.key!.publicKey)
    }

    /// A quiet device that answers the probe gets its frame and stays; the sender hears nothing.
    @Test func answeredProbeChangesNothing() throws {
        let h = try Self.probing(after: .milliseconds(50), timeout: .milliseconds(2000))
        defer { h.stop() }
        let (a, b) = try h.twoDevices()
        try sleepMs(150)
        let id = frameID()
        a.live(to: b.key!.publicKey, id: id, [9])
        guard case .receive(let r) = try b.next(), r.frameID == id else { Issue.record("not forwarded"); return }
        try waitForMetric(h, "homebase_relay_liveness_probes_total{outcome=\"answered\"}", 1)
        #expect(try framesUntilMarker(a).isEmpty)
        try expectStillWorks(b)
        #expect(try h.metric("homebase_relay_liveness_probes_total{outcome=\"unanswered\"}") == 0)
    }

    /// A device heard from within probe-after is not probed at all.
    @Test func recentlyHeardDeviceIsNotProbed() throws {
        let h = try RelayHarness { $0.probeAfter = .seconds(3600) }
        defer { h.stop() }
        let (a, b) = try h.twoDevices()
        try exchange(from: a, to: b, [9])
        #expect(try h.metric("homebase_relay_liveness_probes_total{outcome=\"sent\"}") == 0)
    }
}

/// Waits (hang guard only) until a metric reaches `value`.
func waitForMetric(_ h: RelayHarness, _ sample: String, _ value: Int) throws {
    for _ in 0..<2000 {
        if try h.metric(sample) >= value { return }
        try sleepMs(10)
    }
    throw TestSetupError("\(sample) never reached \(value)")
}
