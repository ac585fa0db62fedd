import Courier
import Dispatch
@testable import GuestAgent
import PeerLink
import Sealing
import Synchronization
import TestSupport
import Testing
import Transport

/// `guest serve`'s background probe against the REAL relay in process (its own liveness probe
/// shortened): a Homebase that answers the relay is heard from; one that left, or whose
/// process stopped answering, is not.
@Suite struct CooldownProbeTests {
    /// A started device: its Courier on its own loop (so a test can freeze that loop).
    final class Side: Sendable {
        let identity: DeviceIdentity
        let courier: Courier
        let loop: EventLoop
        init(_ name: String, knows: [DeviceRecord], relay: LiveRelay) async throws {
            identity = try DeviceIdentity.generate(name: name, now: 1_700_000_000_000)
            loop = try EventLoop()
            try loop.start()
            courier = Courier(link: try PeerLink(configuration: try .fast(relay.url), identity: identity.signingKey, loop: loop),
                              identity: identity, directory: FixedDirectory(knows))
            courier.start()
            let link = courier.link
            try await eventually("\(name) connected") { link.state.isConnected }
        }
        func stop() { courier.stop(); loop.shutdown(); loop.join() }
    }

    func relay() throws -> LiveRelay {
        try LiveRelay { $0.probeAfter = .milliseconds(50); $0.probeTimeout = .seconds(1) }
    }

    @Test func aHomebaseThatAnswersTheRelayIsHeardFrom() async throws {
        let r = try relay()
        defer { r.stop() }
        let guest = try await Side("guest", knows: [], relay: r)
        let host = try await Side("host", knows: [guest.identity.record], relay: r)
        defer { guest.stop(); host.stop() }
        #expect(await CooldownProbe.answers(guest.courier, host.identity.record, gap: .milliseconds(1500)))
    }

    @Test func aHomebaseThatLeftIsNotHeardFrom() async throws {
        let r = try relay()
        defer { r.stop() }
        let host = try await Side("host", knows: [], relay: r)
        let guest = try await Side("guest", knows: [host.identity.record], relay: r)
        defer { guest.stop() }
        host.stop()
        #expect(await !CooldownProbe.answers(guest.courier, host.identity.record, gap: .milliseconds(1500)))
    }

    /// The host's loop is blocked (a frozen process): the relay's probe closes it between the
    /// two frames, so the second is not-here. The freeze is in force, and the pings the host's
    /// link sent before it (every 100 ms in `.fast`) have landed, before the first frame: a ping
    /// still in flight is a sign of life and rightly ends the relay's probe (that was the flake).
    @Test func aFrozenHomebaseIsNotHeardFrom() async throws {
        let r = try relay()
        defer { r.stop() }
        let host = try await Side("host", knows: [], relay: r)
        let guest = try await Side("guest", knows: [host.identity.record], relay: r)
        defer { guest.stop(); host.stop() }
        let frozen = Mutex(false)
        let thaw = DispatchSemaphore(value: 0)
        host.loop.execute { frozen.withLock { $0 = true }; thaw.wait() }  // frozen until the probe has judged
        defer { thaw.signal() }
        try await eventually("host frozen") { frozen.withLock { $0 } }
        try await Task.sleep(for: .milliseconds(300))  // past probe-after; in-flight pings landed
        let heard = await CooldownProbe.answers(guest.courier, host.identity.record, gap: .milliseconds(2500))
        #expect(!heard)
    }
}
