import Courier
import PeerLink
import Sealing
import Signing
import Transport

/// TEST FAKE directory: a fixed set of records.
struct FixedDirectory: DeviceDirectory {
    let records: [PublicKey: DeviceRecord]
    init(_ records: [DeviceRecord]) {
        self.records = Dictionary(records.map { ($0.signingKey, $0) }, uniquingKeysWith: { a, _ in a })
    }
    func record(for key: PublicKey) -> DeviceRecord? { records[key] }
}

func identity(_ name: String) throws -> DeviceIdentity {
    try DeviceIdentity.generate(name: name, now: 1_700_000_000_000)
}

/// A Courier on a fresh link to `relay`, with millisecond link settings, not started.
func courier(_ me: DeviceIdentity, knows: [DeviceRecord], relay: LiveRelay, loop: EventLoop) throws -> Courier {
    var link = try PeerLink.Configuration(relayURL: relay.url)
    link.backoff = Backoff(initial: .milliseconds(20), maximum: .milliseconds(200), jitter: 0.5)
    link.connectTimeout = .seconds(5)
    link.authTimeout = .seconds(5)
    link.pingInterval = .milliseconds(100)
    link.deadLinkTimeout = .seconds(5)
    link.liveTimeout = .seconds(5)
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
