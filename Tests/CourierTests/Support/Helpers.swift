import Courier
import PeerLink
import Sealing
import Signing
import Synchronization
import Testing
import Transport
import Wire

/// A started loop for the links of one test.
final class TestLoop: Sendable {
    let loop: EventLoop
    init() throws { loop = try EventLoop(); try loop.start() }
    func stop() { loop.shutdown(); loop.join() }
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
        let link = try PeerLink.Configuration.fast(relay.url)
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
