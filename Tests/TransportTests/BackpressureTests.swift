import Foundation
import Synchronization
import Testing
@testable import Transport

/// A server whose WebSockets stop reading until told: a slow receiver, made on purpose.
private func startPausedServer(_ h: LoopHarness) throws -> (port: UInt16, resume: @Sendable () -> Void) {
    let held = Mutex<[WebSocket]>([])
    let port = try h.sync {
        let s = try WebSocketServer(loop: h.loop, configuration: .init(), onUpgrade: { ws in
            ws.connection.pauseReading()
            held.withLock { $0.append(ws) }
        })
        return s.port
    }
    return (port, { h.loop.execute { held.withLock { $0.forEach { $0.connection.resumeReading() } } } })
}

@Test func highWaterThenDrainIsReportedForASlowReceiver() throws {
    let h = try LoopHarness()
    defer { h.stop() }
    let (port, resume) = try startPausedServer(h)
    var cfg = WebSocketClient.Configuration(host: "127.0.0.1", port: port)
    cfg.connection.highWaterMark = 64 * 1024
    cfg.connection.maxQueuedBytes = 64 << 20
    let ws = try connectClient(h, cfg, Inbox<WSEvent>())
    let marks = Inbox<String>()
    let depth = try h.sync { () -> Int in
        ws.onHighWater = { _ in marks.put("high") }
        ws.onDrain = { _ in marks.put("drain") }
        // Far more than the socket buffers hold while the peer does not read.
        for _ in 0..<400 { ws.send(binary: [UInt8](repeating: 1, count: 64 * 1024)) }
        return ws.queuedBytes
    }
    #expect(depth > 64 * 1024)
    #expect(try marks.take() == "high")
    resume()
    #expect(try marks.take() == "drain")
}

/// A client (its connection `configure`d) sends 200 frames of 64 KiB to a server that reads
/// nothing: the first event it hears.
func floodIntoAPausedServer(_ configure: (inout ConnectionConfiguration) -> Void) throws -> WSEvent {
    let h = try LoopHarness()
    defer { h.stop() }
    let (port, _) = try startPausedServer(h)
    var cfg = WebSocketClient.Configuration(host: "127.0.0.1", port: port)
    configure(&cfg.connection)
    let inbox = Inbox<WSEvent>()
    let ws = try connectClient(h, cfg, inbox)
    try h.sync { for _ in 0..<200 { ws.send(binary: [UInt8](repeating: 1, count: 64 * 1024)) } }
    return try inbox.take()
}

@Test func stalledWritesCloseAfterTheWriteTimeout() throws {
    let heard = try floodIntoAPausedServer { $0.writeTimeout = .milliseconds(100); $0.maxQueuedBytes = 64 << 20 }
    #expect(heard == .closed(1006, TransportError.writeTimeout.description))
}

@Test func sendQueueOverItsHardLimitCloses() throws {
    let heard = try floodIntoAPausedServer { $0.maxQueuedBytes = 1 << 20 }
    #expect(heard == .closed(1006, TransportError.sendQueueFull.description))
}

@Test func idleConnectionsAreClosed() throws {
    let h = try LoopHarness()
    defer { h.stop() }
    let closed = Inbox<String>()
    let port = try h.sync {
        var cfg = WebSocketServer.Configuration()
        cfg.connection.idleTimeout = .milliseconds(100)
        let s = try WebSocketServer(loop: h.loop, configuration: cfg, onUpgrade: { ws in
            ws.onClose = { _, _, reason in closed.put(reason) }
        })
        return s.port
    }
    let inbox = Inbox<WSEvent>()
    _ = try connectClient(h, .init(host: "127.0.0.1", port: port), inbox)
    #expect(try closed.take() == TransportError.idleTimeout.description)
    #expect(try inbox.take() == .closed(1006, TransportError.peerClosed.description))
}

@Test func swiftClientAndServerTalkOverTLSWithOneLoop() throws {
    let dir = try temporaryDirectory("transport")
    let c = try makeCertificate(in: dir, name: "x")
    let h = try LoopHarness()
    defer { h.stop() }
    let port = try startEchoServer(h, tls: try TLSServerContext(certificateFile: c.cert, keyFile: c.key))
    var cfg = WebSocketClient.Configuration(host: "127.0.0.1", port: port,
                                            tls: try TLSClientContext(trust: .pinnedSHA256(try TLSClientContext.fingerprint(ofPEMFile: c.cert))))
    cfg.maxMessageSize = 4 << 20
    let inbox = Inbox<WSEvent>()
    let ws = try connectClient(h, cfg, inbox)
    let big = (0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0) }
    ws.send(binary: big)
    #expect(try inbox.take() == .message(.binary(big)))
    ws.close(code: WebSocketCloseCode(4000), reason: "bye")
    #expect(try inbox.take() == .closed(4000, "bye"))
}
