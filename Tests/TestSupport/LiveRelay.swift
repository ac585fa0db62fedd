import Dispatch
import Foundation
import RelayServer
import Transport

/// The REAL relay (RelayServer's `Relay`) in process, on its own loop thread and an ephemeral
/// loopback port that stays the same across `shutdown()`/`start()` (same data directory: the
/// mailbox survives). Millisecond settings so tests never wait on production defaults;
/// `configure` changes any of them. The data directory goes at `stop()`.
public final class LiveRelay: @unchecked Sendable {
    public let loop: EventLoop
    public let dataDir: String
    public private(set) var relay: Relay
    private let config: RelayConfig

    public init(label: String = "relay", tls: (cert: String, key: String)? = nil,
                _ configure: (inout RelayConfig) -> Void = { _ in }) throws {
        dataDir = try temporaryDirectory(label)
        var c = RelayConfig.forTests(dataDir: dataDir)
        c.tlsCert = tls?.cert
        c.tlsKey = tls?.key
        c.restartDelay = .milliseconds(50)
        configure(&c)
        loop = try EventLoop()
        try loop.start()
        let first = c, loop = loop
        relay = try onLoop(loop) { try Relay(configuration: first, loop: loop) }
        c.listenPort = relay.port  // restarts come back on the same port
        config = c
    }

    public var port: UInt16 { relay.port }
    /// The loopback `/metrics` listener's port.
    public var metricsPort: UInt16 { relay.metricsPort ?? 0 }
    /// `ws://127.0.0.1:port/v1/connect` (`wss` with a certificate).
    public var url: String { "\(config.tlsCert == nil ? "ws" : "wss")://127.0.0.1:\(port)/v1/connect" }

    /// SIGTERM's path: every device is told `restarting`, connections close, the store closes.
    /// Suspends (never blocks a thread of the shared pool: other tests' streams run there).
    public func shutdown() async {
        let relay = relay, loop = loop
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            loop.execute { relay.shutdown { c.resume() } }
        }
    }

    /// A new relay on the same port and data directory.
    public func start() async throws {
        let c = config, loop = loop
        relay = try await withCheckedThrowingContinuation { (k: CheckedContinuation<Relay, any Error>) in
            loop.execute { k.resume(with: Result { try Relay(configuration: c, loop: loop) }) }
        }
    }

    /// Blocking, for `defer`: shuts the relay down, stops its loop, removes its data directory.
    public func stop() {
        let relay = relay, done = DispatchSemaphore(value: 0)
        loop.execute { relay.shutdown { done.signal() } }
        _ = done.wait(timeout: .now() + .seconds(20))
        loop.shutdown()
        loop.join()
        try? FileManager.default.removeItem(atPath: dataDir)
    }
}

/// Runs `body` on `loop` and waits for its result (test setup only: blocks the caller).
public func onLoop<T>(_ loop: EventLoop, _ body: @escaping @Sendable () throws -> T) throws -> T {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: Result<T, any Error>?
    loop.execute {
        result = Result { try body() }
        done.signal()
    }
    guard done.wait(timeout: .now() + .seconds(20)) == .success else { throw SetupError("loop did not run the work") }
    return try result!.get()
}

extension RelayConfig {
    /// Loopback, an ephemeral port, `dataDir`, second-long handshakes, a quick close, errors
    /// only in the log: what every in-process relay of the tests starts from.
    public static func forTests(dataDir: String) -> RelayConfig {
        var c = RelayConfig()
        c.listenHost = "127.0.0.1"
        c.listenPort = 0
        c.dataDir = dataDir
        c.handshakeTimeout = .seconds(5)
        c.headerTimeout = .seconds(5)
        c.closeTimeout = .milliseconds(200)
        c.logLevel = .error
        // Tests open many loopback connections at once; the per-address limit tests set their own.
        c.limits = .unlimited
        c.limits.metricsPort = 0
        // A loaded parallel test run can take longer than the 750 ms default to answer a
        // liveness probe's ping; the tests about the probe set their own.
        c.probeTimeout = .seconds(5)
        return c
    }
}
