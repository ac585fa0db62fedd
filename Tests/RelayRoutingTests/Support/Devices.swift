import Courier
import PeerLink
import Sealing
import Signing
import Transport

// FixedDirectory (TEST FAKE directory: a fixed set of records) is TestSupport's.

func identity(_ name: String) throws -> DeviceIdentity {
    try DeviceIdentity.generate(name: name, now: 1_700_000_000_000)
}

/// A Courier on a fresh link to `relay` (reached `via` a path), with millisecond link settings,
/// not started.
func courier(_ me: DeviceIdentity, knows: [DeviceRecord], relay: LiveRelay, loop: EventLoop,
             via path: ProviderPath) throws -> Courier {
    var link = try PeerLink.Configuration.fast(relay.url)
    path.route(&link, to: relay)
    var c = Courier.Configuration()
    c.sweepInterval = .milliseconds(20)
    return Courier(link: try PeerLink(configuration: link, identity: me.signingKey, loop: loop),
                   identity: me, directory: FixedDirectory(knows), configuration: c)
}

/// Starts `courier` and waits until its link is up.
func connect(_ courier: Courier) async throws {
    courier.start()
    try await eventually("link up") { courier.link.state.isConnected }
}
