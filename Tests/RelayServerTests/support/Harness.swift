import Dispatch
import Foundation
import Synchronization
import Testing
import Transport
import Wire
@testable import RelayServer

/// Hang guard for waits on real sockets: generous, never a speed assertion.
let hangGuard: DispatchTimeInterval = .seconds(20)

struct TestSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

func temporaryDirectory() throws -> String {
    let d = FileManager.default.temporaryDirectory.appendingPathComponent("relay-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
    return d.path
}

/// A loop on its own thread.
final class LoopThread: @unchecked Sendable {
    let loop: EventLoop
    init() throws {
        loop = try EventLoop()
        try loop.start()
    }
    func stop() { loop.shutdown(); loop.join() }

    /// Runs `body` on the loop thread and returns its result.
    func sync<T: Sendable>(_ body: @escaping @Sendable () throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let box = Mutex<Result<T, any Error>?>(nil)
        loop.execute {
            let r = Result { try body() }
            box.withLock { $0 = r }
            done.signal()
        }
        guard done.wait(timeout: .now() + hangGuard) == .success else { throw TestSetupError("loop did not run the work") }
        return try box.withLock { $0! }.get()
    }
}

/// Millisecond settings so tests never wait on production defaults.
func testConfig(dataDir: String) -> RelayConfig {
    var c = RelayConfig()
    c.listenHost = "127.0.0.1"
    c.listenPort = 0
    c.dataDir = dataDir
    c.handshakeTimeout = .seconds(5)
    c.headerTimeout = .seconds(5)
    c.closeTimeout = .milliseconds(200)
    c.logLevel = .error
    return c
}

/// An in-process relay on an ephemeral port, plus a client loop.
final class RelayHarness: @unchecked Sendable {
    let server: LoopThread
    let clients: LoopThread
    let relay: Relay
    let dataDir: String
    var port: UInt16 { relay.port }
    var origin: String { "ws://127.0.0.1:\(port)" }

    init(dataDir: String? = nil, _ configure: (inout RelayConfig) -> Void = { _ in }) throws {
        let dir = try dataDir ?? temporaryDirectory()
        self.dataDir = dir
        var c = testConfig(dataDir: dir)
        configure(&c)
        let config = c
        server = try LoopThread()
        clients = try LoopThread()
        let loop = server.loop
        relay = try server.sync { try Relay(configuration: config, loop: loop) }
    }

    /// Shuts the relay down (devices get `restarting`) and stops both loops.
    func stop() {
        let done = DispatchSemaphore(value: 0)
        let relay = self.relay
        server.loop.execute { relay.shutdown { done.signal() } }
        _ = done.wait(timeout: .now() + hangGuard)
        server.stop()
        clients.stop()
    }

    /// A client authenticated with a fresh key (or `key`), having seen `auth-ok`.
    func device(_ key: SigningKeyBox = SigningKeyBox()) throws -> TestClient {
        let c = try TestClient.connect(loop: clients.loop, port: port)
        try c.authenticate(key: key, origin: origin)
        guard case .authOK = try c.next() else { throw TestSetupError("no auth-ok") }
        return c
    }

    /// Runs `body` on the relay's loop (its state is loop-confined).
    func onRelay<T: Sendable>(_ body: @escaping @Sendable (Relay) throws -> T) throws -> T {
        let relay = self.relay
        return try server.sync { try body(relay) }
    }

    /// GET `path` over plain HTTP: (status line, body).
    func get(_ path: String) throws -> (String, String) {
        let raw = try RawSocket(port: port)
        try raw.write(Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        let text = String(decoding: raw.readToEnd(), as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        return (parts[0].components(separatedBy: "\r\n")[0], parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    /// The value of one sample line of /metrics (exact name with labels).
    func metric(_ sample: String) throws -> Int {
        let (_, body) = try get("/metrics")
        for line in body.split(separator: "\n") where line.hasPrefix(sample + " ") {
            return Int(line.dropFirst(sample.count + 1)) ?? -1
        }
        throw TestSetupError("no metric \(sample)")
    }
}
