import Foundation
import Testing
@testable import Transport

enum WSEvent: Sendable, Equatable {
    case message(WebSocketMessage)
    case pong([UInt8])
    case closed(UInt16, String)
}

/// Connects a Swift client and routes its events into an inbox.
func connectClient(_ h: LoopHarness, _ cfg: WebSocketClient.Configuration, _ inbox: Inbox<WSEvent>) throws -> WebSocket {
    let opened = Inbox<Result<WebSocket, TransportError>>()
    WebSocketClient.connect(loop: h.loop, configuration: cfg) { r in
        if case .success(let ws) = r {
            ws.onMessage = { _, m in inbox.put(.message(m)) }
            ws.onPong = { _, p in inbox.put(.pong(p)) }
            ws.onClose = { _, code, reason in inbox.put(.closed(code.rawValue, reason)) }
        }
        opened.put(r)
    }
    return try opened.take().get()
}

/// The Swift client driving Python's `websockets` server.
@Suite struct ClientAgainstPythonServer {
    @Test(arguments: [false, true])
    func exchangesMessagesPingsAndSeesTheServersClose(tls: Bool) throws {
        let dir = try temporaryDirectory("transport")
        let cert = try makeCertificate(in: dir, name: "srv")
        let server = try ServerPeer("ws_echo_server.py", tls ? [cert.cert, cert.key] : [])
        defer { server.stop() }
        let h = try LoopHarness()
        defer { h.stop() }
        var cfg = WebSocketClient.Configuration(host: "127.0.0.1", port: server.port)
        if tls {
            cfg.tls = try TLSClientContext(trust: .caFile(cert.cert))
            cfg.serverName = "localhost" // verified against the certificate's name
        }
        let inbox = Inbox<WSEvent>()
        let ws = try connectClient(h, cfg, inbox)
        for size in [0, 1, 125, 126, 65_536, 1 << 20] {
            let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ size) }
            ws.send(binary: payload) // from the test thread: hops to the loop
            #expect(try inbox.take() == .message(.binary(payload)), "size \(size)")
        }
        ws.send(text: "grüß")
        #expect(try inbox.take() == .message(.text("grüß")))
        ws.ping([1, 2, 3])
        #expect(try inbox.take() == .pong([1, 2, 3]))
        ws.send(binary: Array("close-me".utf8))
        #expect(try inbox.take() == .closed(4001, "bye"))
    }

    @Test func wrongCertificateNameIsRefused() throws {
        let dir = try temporaryDirectory("transport")
        let cert = try makeCertificate(in: dir, name: "srv")
        let server = try ServerPeer("ws_echo_server.py", [cert.cert, cert.key])
        defer { server.stop() }
        let h = try LoopHarness()
        defer { h.stop() }
        var cfg = WebSocketClient.Configuration(host: "127.0.0.1", port: server.port)
        cfg.tls = try TLSClientContext(trust: .caFile(cert.cert))
        cfg.serverName = "relay.example" // not in the certificate
        let result = Result { try connectClient(h, cfg, Inbox<WSEvent>()) }
        guard case .failure(let e) = result, case .tls(let reason)? = e as? TransportError else {
            Issue.record("expected a TLS failure, got \(result)"); return
        }
        #expect(reason.contains("certificate verify failed"))
    }

    @Test func refusedConnectIsReported() throws {
        let h = try LoopHarness()
        defer { h.stop() }
        // A port that was free a moment ago: bind, read the port, close.
        let port = try h.sync { () -> UInt16 in
            let l = try TCPListener(loop: h.loop, configuration: .init()) { _ in fatalError("no accept expected") }
            defer { l.close() }
            return l.port
        }
        let result = Result { try connectClient(h, .init(host: "127.0.0.1", port: port), Inbox<WSEvent>()) }
        guard case .failure(let e) = result else { Issue.record("connected to a closed port"); return }
        #expect(e as? TransportError == .system(call: "connect", errno: ECONNREFUSED))
    }
}
