import Courier
import PeerLink
import Sealing
import Signing
import Synchronization
import Testing
import Transport
import Wire

struct SetupError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

/// Hang guard for waits on real sockets: generous, never a speed assertion.
let hangGuard: Duration = .seconds(30)

/// Waits until `condition` holds; throws (naming `what`) only when the hang guard passes.
func eventually(_ what: String, _ condition: () -> Bool) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + hangGuard
    while !condition() {
        guard clock.now < deadline else { throw SetupError("never happened: \(what)") }
        try await Task.sleep(for: .milliseconds(5))
    }
}

/// A started loop for the links of one test.
final class TestLoop: Sendable {
    let loop: EventLoop
    init() throws { loop = try EventLoop(); try loop.start() }
    func stop() { loop.shutdown(); loop.join() }
}

/// TEST FAKE directory: a fixed set of records.
struct FixedDirectory: DeviceDirectory {
    let records: [PublicKey: DeviceRecord]
    init(_ records: [DeviceRecord]) {
        self.records = Dictionary(records.map { ($0.signingKey, $0) }, uniquingKeysWith: { a, _ in a })
    }
    func record(for key: PublicKey) -> DeviceRecord? { records[key] }
}

/// One device of a test: its identity, its Courier, and everything the Courier handed out.
final class Device: Sendable {
    let identity: DeviceIdentity
    let courier: Courier
    private let got = Mutex<[Delivery]>([])
    private let heard = Mutex<[CourierEvent]>([])

    var record: DeviceRecord { identity.record }
    var deliveries: [Delivery] { got.withLock { $0 } }
    var events: [CourierEvent] { heard.withLock { $0 } }
    var messages: [AppMessage] { deliveries.map(\.message) }

    init(_ identity: DeviceIdentity, knows: [DeviceRecord], relay: LiveRelay, loop: TestLoop,
         _ tweak: (inout Courier.Configuration) -> Void = { _ in }) throws {
        self.identity = identity
        var link = try PeerLink.Configuration(relayURL: relay.url)
        link.backoff = Backoff(initial: .milliseconds(20), maximum: .milliseconds(200), jitter: 0.5)
        link.pingInterval = .milliseconds(100)
        link.deadLinkTimeout = .seconds(5)
        link.liveTimeout = .seconds(5)
        link.connectTimeout = .seconds(5)
        link.authTimeout = .seconds(5)
        var c = Courier.Configuration()
        c.sweepInterval = .milliseconds(20)
        tweak(&c)
        courier = Courier(link: try PeerLink(configuration: link, identity: identity.signingKey, loop: loop.loop),
                          identity: identity, directory: FixedDirectory(knows), configuration: c)
        let courier = courier
        Task { [self] in for await d in courier.deliveries { got.withLock { $0.append(d) } } }
        Task { [self] in for await e in courier.events { heard.withLock { $0.append(e) } } }
    }

    func start() async throws {
        courier.start()
        try await eventually("connected") {
            events.contains { if case .link(let s) = $0 { s.isConnected } else { false } }
        }
    }
}

func identity(_ name: String) throws -> DeviceIdentity {
    try DeviceIdentity.generate(name: name, now: 1_700_000_000_000)
}

/// Two devices that know each other, connected through one relay.
func pair(_ relay: LiveRelay, _ loop: TestLoop,
          _ tweak: (inout Courier.Configuration) -> Void = { _ in }) async throws -> (Device, Device) {
    let ia = try identity("guest"), ib = try identity("host")
    let a = try Device(ia, knows: [ib.record], relay: relay, loop: loop, tweak)
    let b = try Device(ib, knows: [ia.record], relay: relay, loop: loop, tweak)
    try await a.start()
    try await b.start()
    return (a, b)
}

func id16(_ byte: UInt8) -> Bytes16 { .repeating(byte) }

func request(_ id: UInt8, text: String = "hello") -> AppMessage.Request {
    .init(requestID: id16(id), model: "tiny", conversationID: id16(0xC0), prefixHash: .zero,
          messages: [.init(role: .user, content: text)], inline: true, maxTokens: 64, temperaturePerMille: 700)
}

/// Reads a reply stream to its end (the hang guard bounds it).
func collect(_ stream: ReplyStream) async throws -> [Reply] {
    try await withThrowingTaskGroup(of: [Reply]?.self) { group in
        group.addTask {
            var out: [Reply] = []
            for await r in stream { out.append(r) }
            return out
        }
        group.addTask { try await Task.sleep(for: hangGuard); return nil }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let replies = first else { throw SetupError("reply stream never ended") }
        return replies
    }
}

/// The text of the opened chunks, concatenated.
func text(of replies: [Reply]) -> String {
    var bytes: [UInt8] = []
    for case .chunk(let d, _) in replies { bytes += d }
    return String(decoding: bytes, as: UTF8.self)
}

extension Device {
    /// Writes sealed payloads straight onto this device's link, as they are (a relay that drops,
    /// tampers or replays would deliver exactly these bytes), one after the other.
    func sendRaw(_ payloads: [[UInt8]], to recipient: DeviceRecord) async -> [LiveOutcome] {
        var outcomes: [LiveOutcome] = []
        for p in payloads { outcomes.append(await courier.link.sendLive(to: recipient.signingKey, payload: p)) }
        return outcomes
    }
}
