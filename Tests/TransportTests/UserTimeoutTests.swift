import CLinux
import Glibc
import Synchronization
import Testing
@testable import Transport

/// The socket option as the kernel holds it (ms), read back from the descriptor.
private func userTimeoutMs(_ fd: Int32) -> UInt32 {
    var v: UInt32 = 0
    var len = socklen_t(MemoryLayout<UInt32>.size)
    getsockopt(fd, Int32(IPPROTO_TCP), TCP_USER_TIMEOUT, &v, &len)
    return v
}

/// TCP_USER_TIMEOUT reaches both ends' sockets when configured (a dead peer's unacknowledged
/// data then fails the connection in seconds), and stays the kernel's (0) when not.
@Test func userTimeoutIsSetOnAcceptedAndConnectedSockets() throws {
    let h = try LoopHarness()
    defer { h.stop() }
    let accepted = Mutex<[WebSocket]>([])
    let port = try h.sync {
        var c = WebSocketServer.Configuration()
        c.connection.userTimeout = .milliseconds(1234)
        let s = try WebSocketServer(loop: h.loop, configuration: c, onUpgrade: { ws in accepted.withLock { $0.append(ws) } })
        return s.port
    }
    var cfg = WebSocketClient.Configuration(host: "127.0.0.1", port: port)
    cfg.connection.userTimeout = .milliseconds(4321)
    let client = try connectClient(h, cfg, Inbox<WSEvent>())
    var plainCfg = WebSocketClient.Configuration(host: "127.0.0.1", port: port)
    plainCfg.connection.userTimeout = nil
    let plain = try connectClient(h, plainCfg, Inbox<WSEvent>())
    #expect(try h.sync { userTimeoutMs(client.connection.fd) } == 4321)
    #expect(try h.sync { userTimeoutMs(plain.connection.fd) } == 0)
    for _ in 0..<2000 where accepted.withLock({ $0.count }) < 2 { usleep(1000) }
    let server = accepted.withLock { $0 }
    #expect(server.count == 2)
    #expect(try h.sync { server.map { userTimeoutMs($0.connection.fd) } } == [1234, 1234])
}
