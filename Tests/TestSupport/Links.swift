import Courier
import PeerLink
import Sealing
import Signing
import Synchronization

extension PeerLink.Configuration {
    /// Millisecond timers, so tests run quickly; none is asserted on.
    public static func fast(_ url: String, trust: PeerLink.Trust = .systemRoots) throws -> Self {
        var c = try PeerLink.Configuration(relayURL: url, trust: trust)
        c.backoff = Backoff(initial: .milliseconds(20), maximum: .milliseconds(200), jitter: 0.5)
        c.connectTimeout = .seconds(5)
        c.authTimeout = .seconds(5)
        c.pingInterval = .milliseconds(100)
        c.deadLinkTimeout = .seconds(5)
        c.liveTimeout = .seconds(5)
        return c
    }
}

/// Collects a link's states and inbound events as they come (each stream has one consumer:
/// this); with `autoAck`, acknowledges every frame as it arrives.
public final class LinkRecorder: Sendable {
    private final class Log: Sendable {
        let states = Mutex<[LinkState]>([])
        let events = Mutex<[InboundEvent]>([])
    }
    private let log = Log()

    public init(_ link: PeerLink, autoAck: Bool = false) {
        let log = log
        Task { for await s in link.states { log.states.withLock { $0.append(s) } } }
        Task {
            for await e in link.inbound {
                log.events.withLock { $0.append(e) }
                if autoAck, case .frame(let f) = e { link.ack(f) }
            }
        }
    }

    public var history: [LinkState] { log.states.withLock { $0 } }
    public var frames: [Inbound] {
        log.events.withLock { $0.compactMap { if case .frame(let f) = $0 { f } else { nil } } }
    }
    public var queueEmpties: Int { log.events.withLock { $0.filter { $0 == .queueEmpty }.count } }
    public var connections: Int { history.filter(\.isConnected).count }

    public func waitConnected(count: Int = 1) async throws {
        try await eventually("connected \(count) time(s)") { connections >= count }
    }
    public func waitFrames(_ n: Int) async throws {
        try await eventually("\(n) frame(s)") { frames.count >= n }
    }
    public func waitFor(_ what: String, _ match: @escaping (LinkState) -> Bool) async throws {
        try await eventually(what) { history.contains(where: match) }
    }
}

/// TEST FAKE directory: a fixed set of records.
public struct FixedDirectory: DeviceDirectory {
    public let records: [PublicKey: DeviceRecord]
    public init(_ records: [DeviceRecord]) {
        self.records = Dictionary(records.map { ($0.signingKey, $0) }, uniquingKeysWith: { a, _ in a })
    }
    public func record(for key: PublicKey) -> DeviceRecord? { records[key] }
}
