// LoopThread and the relay's test settings are TestSupport's, re-exported for every file of
// this target.
@_exported import TestSupport
import Dispatch
import Foundation
import Synchronization
import Testing
import Transport
import Wire
@testable import RelayServer

/// Hang guard for waits on real sockets: generous, never a speed assertion.
let hangGuard: DispatchTimeInterval = .seconds(20)

/// This target's setup errors are TestSupport's.
typealias TestSetupError = SetupError

/// Millisecond settings so tests never wait on production defaults (the relay's own restart
/// delay kept).
func testConfig(dataDir: String) -> RelayConfig { .forTests(dataDir: dataDir) }

/// An in-process relay on an ephemeral port, plus a client loop.
final class RelayHarness: @unchecked Sendable {
    let server: LoopThread
    let clients: LoopThread
    let relay: Relay
    let dataDir: String
    var port: UInt16 { relay.port }
    var origin: String { "ws://127.0.0.1:\(port)" }
    /// How `connect()` and `device()` reach the hub.
    let path: HubPath

    init(dataDir: String? = nil, via path: HubPath = .live, _ configure: (inout RelayConfig) -> Void = { _ in }) throws {
        self.path = path
        let dir = try dataDir ?? temporaryDirectory("relay")
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
        let c = try connect()
        try c.authenticate(key: key, origin: origin)
        guard case .authOK = try c.next() else { throw TestSetupError("no auth-ok") }
        return c
    }

    /// Two authenticated devices (fresh keys) that have each read their empty backlog.
    func twoDevices() throws -> (TestClient, TestClient) {
        let a = try device(), b = try device()
        for c in [a, b] { #expect(try c.next() == .queueEmpty) }
        return (a, b)
    }

    /// A connection that has seen its challenge, by `path`.
    func connect() throws -> TestClient {
        switch path {
        case .live: try TestClient.connect(loop: clients.loop, port: port)
        case .memory: try TestClient.attach(to: relay, server: server, clients: clients)
        }
    }

    /// Runs `body` on the relay's loop (its state is loop-confined).
    func onRelay<T: Sendable>(_ body: @escaping @Sendable (Relay) throws -> T) throws -> T {
        let relay = self.relay
        return try server.sync { try body(relay) }
    }

    /// GET `path` over plain HTTP: (status line, body). `/metrics` is asked of the loopback
    /// metrics listener unless `port` says otherwise.
    func get(_ path: String, port: UInt16? = nil) throws -> (String, String) {
        let raw = try RawSocket(port: port ?? (path == "/metrics" ? relay.metricsPort ?? 0 : self.port))
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

/// `a` sends `b` a live frame and `b` receives it: the two have just exchanged.
func exchange(from a: TestClient, to b: TestClient, _ payload: [UInt8]) throws {
    a.live(to: b.key!.publicKey, id: frameID(), payload)
    guard case .receive = try b.next() else { throw TestSetupError("the live frame was not forwarded") }
}
