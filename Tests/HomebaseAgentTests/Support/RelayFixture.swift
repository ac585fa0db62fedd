import Dispatch
import Foundation
import RelayServer
import Synchronization
import Transport

/// An in-process relay on an ephemeral loopback port, on its own event loop thread.
final class RelayFixture: @unchecked Sendable {
    let loop: EventLoop
    let relay: Relay
    /// The relay's data directory (its mailbox database lives there).
    let dataDir: String
    var url: String { "ws://127.0.0.1:\(relay.port)/v1/connect" }

    init() throws {
        var c = RelayConfig()
        c.listenHost = "127.0.0.1"
        c.listenPort = 0
        dataDir = try temporaryDirectory("relay")
        c.dataDir = dataDir
        c.handshakeTimeout = .seconds(5)
        c.headerTimeout = .seconds(5)
        c.closeTimeout = .milliseconds(200)
        c.logLevel = .error
        let config = c
        loop = try EventLoop()
        try loop.start()
        let done = DispatchSemaphore(value: 0)
        let box = Mutex<Result<Relay, any Error>?>(nil)
        let loop = self.loop
        loop.execute {
            let r = Result { try Relay(configuration: config, loop: loop) }
            box.withLock { $0 = r }
            done.signal()
        }
        guard done.wait(timeout: .now() + 20) == .success else { throw TestSetupError("relay did not start") }
        relay = try box.withLock { $0! }.get()
    }

    func stop() {
        let done = DispatchSemaphore(value: 0)
        let relay = self.relay
        loop.execute { relay.shutdown { done.signal() } }
        _ = done.wait(timeout: .now() + 20)
        loop.shutdown()
        loop.join()
    }
}
