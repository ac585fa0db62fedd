import Dispatch
import Foundation
import PeerLink
import RelayServer
import Signing
import Synchronization
import Testing
import Transport

/// Hang guard for waits on real sockets: generous, never a speed assertion.
let hangGuard: Duration = .seconds(30)

struct SetupError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

func temporaryDirectory(_ prefix: String) throws -> String {
    let d = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
    return d.path
}

/// A REAL relay (RelayServer's `Relay`) on its own loop thread, on an ephemeral port that stays
/// the same across `restart()` (same data directory: the mailbox survives).
final class LiveRelay: @unchecked Sendable {
    let loop: EventLoop
    let dataDir: String
    private(set) var relay: Relay
    private let config: RelayConfig

    init(tls: (cert: String, key: String)? = nil, _ configure: (inout RelayConfig) -> Void = { _ in }) throws {
        dataDir = try temporaryDirectory("relay")
        var c = RelayConfig()
        c.listenHost = "127.0.0.1"
        c.listenPort = 0
        c.dataDir = dataDir
        c.tlsCert = tls?.cert
        c.tlsKey = tls?.key
        c.handshakeTimeout = .seconds(5)
        c.headerTimeout = .seconds(5)
        c.closeTimeout = .milliseconds(200)
        c.restartDelay = .milliseconds(50)
        c.logLevel = .error
        configure(&c)
        loop = try EventLoop()
        try loop.start()
        let first = c, loop = loop
        relay = try Self.sync(loop) { try Relay(configuration: first, loop: loop) }
        c.listenPort = relay.port // restarts come back on the same port
        config = c
    }

    var port: UInt16 { relay.port }
    var url: String { "\(config.tlsCert == nil ? "ws" : "wss")://127.0.0.1:\(port)/v1/connect" }

    /// SIGTERM's path: every device is told `restarting`, connections close, the store closes.
    /// Suspends (never blocks a thread of the shared pool: other tests' streams run there).
    func shutdown() async {
        let relay = relay, loop = loop
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            loop.execute { relay.shutdown { c.resume() } }
        }
    }

    /// A new relay process on the same port and data directory.
    func start() async throws {
        let c = config, loop = loop
        relay = try await withCheckedThrowingContinuation { (k: CheckedContinuation<Relay, any Error>) in
            loop.execute { k.resume(with: Result { try Relay(configuration: c, loop: loop) }) }
        }
    }

    /// Blocking, for `defer`: shuts the relay down and stops its loop.
    func stop() {
        let relay = relay
        let done = DispatchSemaphore(value: 0)
        loop.execute { relay.shutdown { done.signal() } }
        _ = done.wait(timeout: .now() + .seconds(20))
        loop.shutdown()
        loop.join()
    }

    private static func sync<T>(_ loop: EventLoop, _ body: @escaping @Sendable () throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Result<T, any Error>?
        loop.execute {
            result = Result { try body() }
            done.signal()
        }
        guard done.wait(timeout: .now() + .seconds(20)) == .success else { throw SetupError("loop did not run the work") }
        return try result!.get()
    }
}

/// Waits until `condition` holds; throws (naming `what`) only when the hang guard passes.
func eventually(_ what: String, _ condition: () -> Bool) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + hangGuard
    while !condition() {
        guard clock.now < deadline else { throw SetupError("never happened: \(what)") }
        try await Task.sleep(for: .milliseconds(5))
    }
}

/// A started link with everything it saw recorded (each stream has one consumer: this).
final class Device: Sendable {
    let link: PeerLink
    let key: PublicKey
    private final class Log: Sendable {
        let states = Mutex<[LinkState]>([])
        let events = Mutex<[InboundEvent]>([])
    }
    private let log = Log()

    init(_ url: String, identity: SigningKey = .generate(), trust: PeerLink.Trust = .systemRoots,
         token: String? = nil, autoAck: Bool = true) throws {
        var c = try PeerLink.Configuration(relayURL: url, trust: trust)
        c.backoff = Backoff(initial: .milliseconds(20), maximum: .milliseconds(200), jitter: 0.5)
        c.connectTimeout = .seconds(5)
        c.authTimeout = .seconds(5)
        c.pingInterval = .milliseconds(100)
        c.deadLinkTimeout = .seconds(5)
        c.liveTimeout = .seconds(5)
        link = try PeerLink(configuration: c, identity: identity, admissionToken: token.map { Array($0.utf8) })
        key = identity.publicKey
        let link = link, log = log
        Task { for await s in link.states { log.states.withLock { $0.append(s) } } }
        Task {
            for await e in link.inbound {
                log.events.withLock { $0.append(e) }
                if autoAck, case .frame(let f) = e { link.ack(f) }
            }
        }
        link.start()
    }

    var history: [LinkState] { log.states.withLock { $0 } }
    var frames: [Inbound] { log.events.withLock { $0.compactMap { if case .frame(let f) = $0 { f } else { nil } } } }
    var queueEmpties: Int { log.events.withLock { $0.filter { $0 == .queueEmpty }.count } }
    var connections: Int { history.filter(\.isConnected).count }

    func waitConnected(count: Int = 1) async throws {
        try await eventually("connected \(count) time(s)") { connections >= count }
    }
    func waitFrames(_ n: Int) async throws {
        try await eventually("\(n) frame(s)") { frames.count >= n }
    }
    func stop() { link.stop() }
}

/// A self-signed certificate for "localhost" and 127.0.0.1, written by the openssl CLI.
func makeCertificate() throws -> (cert: String, key: String) {
    let dir = try temporaryDirectory("relaycert")
    let cert = dir + "/relay.crt", key = dir + "/relay.key"
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

/// The certificate's pin as 64 hex digits.
func pinHex(_ certFile: String) throws -> String {
    try TLSClientContext.fingerprint(ofPEMFile: certFile).map { String($0, radix: 16).leftPadded(2) }.joined()
}

extension String {
    func leftPadded(_ n: Int) -> String { String(repeating: "0", count: max(0, n - count)) + self }
}

/// A port nothing listens on: bound, then closed.
func deadPort() throws -> UInt16 {
    let relay = try LiveRelay()
    let port = relay.port
    relay.stop()
    return port
}
