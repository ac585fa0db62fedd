import Foundation
import PeerLink
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

/// Collects a link's states and inbound events as they come (each stream has one consumer: this).
final class Recorder: Sendable {
    final class Log: Sendable {
        let states = Mutex<[LinkState]>([])
        let events = Mutex<[InboundEvent]>([])
    }
    private let log = Log()

    init(_ link: PeerLink) {
        let log = log
        Task { for await s in link.states { log.states.withLock { $0.append(s) } } }
        Task { for await e in link.inbound { log.events.withLock { $0.append(e) } } }
    }

    var history: [LinkState] { log.states.withLock { $0 } }
    var frames: [Inbound] {
        log.events.withLock { $0.compactMap { if case .frame(let f) = $0 { f } else { nil } } }
    }
    var queueEmpties: Int { log.events.withLock { $0.filter { $0 == .queueEmpty }.count } }
    var connections: Int { history.filter(\.isConnected).count }

    func waitConnected(count: Int = 1) async throws {
        try await eventually("connected \(count) time(s)") { connections >= count }
    }
    func waitFor(_ what: String, _ match: @escaping (LinkState) -> Bool) async throws {
        try await eventually(what) { history.contains(where: match) }
    }
}

/// A started loop for the links of one test.
final class TestLoop: Sendable {
    let loop: EventLoop
    init() throws { loop = try EventLoop(); try loop.start() }
    func stop() { loop.shutdown(); loop.join() }
}

/// Fast settings: millisecond timers, so tests run quickly; none is asserted on.
func fastConfiguration(_ url: String, trust: PeerLink.Trust = .systemRoots,
                       _ tweak: (inout PeerLink.Configuration) -> Void = { _ in }) throws -> PeerLink.Configuration {
    var c = try PeerLink.Configuration(relayURL: url, trust: trust)
    c.backoff = Backoff(initial: .milliseconds(20), maximum: .milliseconds(200), jitter: 0.5)
    c.connectTimeout = .seconds(5)
    c.authTimeout = .seconds(5)
    c.pingInterval = .milliseconds(100)
    c.deadLinkTimeout = .seconds(5)
    c.liveTimeout = .seconds(5)
    tweak(&c)
    return c
}

/// A link with a recorder, started.
func startLink(_ relayURL: String, on loop: TestLoop, identity: SigningKey = .generate(),
               trust: PeerLink.Trust = .systemRoots,
               _ tweak: (inout PeerLink.Configuration) -> Void = { _ in }) throws -> (PeerLink, Recorder) {
    let link = try PeerLink(configuration: fastConfiguration(relayURL, trust: trust, tweak), identity: identity, loop: loop.loop)
    let rec = Recorder(link)
    link.start()
    return (link, rec)
}

func bytes16(_ f: Inbound) -> Bytes16 { f.frameID }

/// A self-signed certificate for "localhost" and 127.0.0.1, written by the openssl CLI.
func makeCertificate() throws -> (cert: String, key: String) {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("peerlink-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let cert = dir.appendingPathComponent("relay.crt").path
    let key = dir.appendingPathComponent("relay.key").path
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
    p.arguments = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                   "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=localhost",
                   "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"]
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    try p.run()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { throw SetupError("openssl req failed") }
    return (cert, key)
}
