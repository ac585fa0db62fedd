import Dispatch
import Foundation
import RelayServer
import Transport

/// Hang guard for waits on real sockets: generous, never a speed assertion.
let hangGuard: Duration = .seconds(30)

struct SetupError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

/// The REAL relay (RelayServer's `Relay`) in process, on its own loop thread and an ephemeral
/// loopback port, with a throwaway data directory.
final class LiveRelay: @unchecked Sendable {
    let loop: EventLoop
    let relay: Relay
    let dataDir: String

    init() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("relayrouting-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        dataDir = dir.path
        var c = RelayConfig()
        c.listenHost = "127.0.0.1"
        c.listenPort = 0
        c.dataDir = dataDir
        c.handshakeTimeout = .seconds(5)
        c.headerTimeout = .seconds(5)
        c.closeTimeout = .milliseconds(200)
        c.restartDelay = .milliseconds(50)
        c.logLevel = .error
        loop = try EventLoop()
        try loop.start()
        let config = c, loop = loop
        relay = try onLoop(loop) { try Relay(configuration: config, loop: loop) }
    }

    var url: String { "ws://127.0.0.1:\(relay.port)/v1/connect" }

    func stop() {
        let relay = relay, done = DispatchSemaphore(value: 0)
        loop.execute { relay.shutdown { done.signal() } }
        _ = done.wait(timeout: .now() + .seconds(20))
        loop.shutdown()
        loop.join()
        try? FileManager.default.removeItem(atPath: dataDir)
    }
}

/// Runs `body` on `loop` and waits for its result (test setup only: blocks the caller).
func onLoop<T>(_ loop: EventLoop, _ body: @escaping @Sendable () throws -> T) throws -> T {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: Result<T, any Error>?
    loop.execute {
        result = Result { try body() }
        done.signal()
    }
    guard done.wait(timeout: .now() + .seconds(20)) == .success else { throw SetupError("loop did not run the work") }
    return try result!.get()
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
