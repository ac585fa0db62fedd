import Foundation
import Synchronization
import Testing
@testable import Transport

/// The server's own TLS 1.3 record layer over real sockets, against OpenSSL peers: the project's
/// own client (OpenSSL), `openssl s_client` and Python's ssl (tls_peer.py).
@Suite struct TLSRecordLayerInteropTests {
    /// An echo server that reports, per connection, which record layer it ended on and why it closed.
    final class Server: Sendable {
        let h: LoopHarness
        let port: UInt16
        let cert: String
        let layers = Inbox<String>()
        let closes = Inbox<String>()

        init(_ choice: TLSRecordLayerChoice = .own) throws {
            let dir = try temporaryDirectory("transport")
            let c = try makeCertificate(in: dir, name: "r")
            cert = c.cert
            let h = try LoopHarness()
            self.h = h
            let ctx = try TLSServerContext(certificateFile: c.cert, keyFile: c.key, recordLayer: choice)
            let layers = self.layers, closes = self.closes
            port = try h.sync {
                let s = try WebSocketServer(loop: h.loop, configuration: WebSocketServer.Configuration(), tls: ctx, onUpgrade: { ws in
                    let tls = ws.connection.tls
                    layers.put(tls?.ownSuite.map { "own \($0)" } ?? "openssl \(tls?.openSSLVersion ?? -1)")
                    ws.onMessage = { ws, m in
                        switch m {
                        case .binary(let b): ws.send(binary: b)
                        case .text(let t): ws.send(text: t)
                        }
                    }
                    ws.onClose = { _, _, reason in closes.put(reason) }
                })
                return s.port
            }
        }

        func stop() { h.stop() }

        func client(suites: String? = nil, maxTLS12: Bool = false) throws -> (WebSocket, Inbox<WSEvent>) {
            var cfg = WebSocketClient.Configuration(host: "127.0.0.1", port: port,
                                                    tls: try TLSClientContext(trust: .pinnedSHA256(try TLSClientContext.fingerprint(ofPEMFile: cert)),
                                                                              tls13Suites: suites, maxTLS12: maxTLS12))
            cfg.maxMessageSize = 4 << 20
            let inbox = Inbox<WSEvent>()
            return (try connectClient(h, cfg, inbox), inbox)
        }
    }

    /// The project's client with each suite: the server hands over to its own layer, and 2 MiB
    /// (128 records each way, several reads cut mid-record) and small messages echo intact.
    @Test(arguments: ["TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"])
    func eachSuiteWithTheProjectsClient(suite: String) throws {
        let server = try Server()
        defer { server.stop() }
        let (ws, inbox) = try server.client(suites: suite)
        let expected: [String: TLS13Suite] = ["TLS_AES_128_GCM_SHA256": .aes128GCMSHA256, "TLS_AES_256_GCM_SHA384": .aes256GCMSHA384,
                                              "TLS_CHACHA20_POLY1305_SHA256": .chacha20Poly1305SHA256]
        #expect(try server.layers.take() == "own \(expected[suite]!)")
        let big = (0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        ws.send(binary: big)
        #expect(try inbox.take() == .message(.binary(big)))
        for n in [0, 1, 125, 16_379, 16_384, 70_000] {
            let m = [UInt8](repeating: UInt8(n & 0xff), count: n)
            ws.send(binary: m)
            #expect(try inbox.take() == .message(.binary(m)), "\(n) bytes")
        }
        ws.close(code: WebSocketCloseCode(4000), reason: "bye")
        #expect(try inbox.take() == .closed(4000, "bye"))
    }

    /// A TLS 1.2 client stays on OpenSSL, and `tls-record-layer openssl` keeps OpenSSL for TLS 1.3.
    @Test func tls12AndTheOpenSSLChoiceStayOnOpenSSL() throws {
        for (choice, tls12) in [(TLSRecordLayerChoice.own, true), (.openssl, false)] {
            let server = try Server(choice)
            defer { server.stop() }
            let (ws, inbox) = try server.client(maxTLS12: tls12)
            #expect(try server.layers.take() == "openssl \(tls12 ? 0x0303 : 0x0304)")
            ws.send(binary: Array("over OpenSSL".utf8))
            #expect(try inbox.take() == .message(.binary(Array("over OpenSSL".utf8))))
        }
    }

    /// `openssl s_client` with each suite, a KeyUpdate with update_requested in the middle.
    @Test(arguments: ["TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"])
    func sClientWithAKeyUpdate(suite: String) throws {
        let server = try Server()
        defer { server.stop() }
        let r = try runPeer(["tls_peer.py", "s_client", "\(server.port)", server.cert, suite])
        #expect(r.status == 0, "\(r.line)")
        #expect(r.line.hasPrefix("OK echo of 3000 bytes over TLSv1.3"), "\(r.line)")
        #expect(try server.layers.take().hasPrefix("own "))
    }

    @Test func sClientOverTLS12() throws {
        let server = try Server()
        defer { server.stop() }
        let r = try runPeer(["tls_peer.py", "tls12", "\(server.port)", server.cert])
        #expect(r.status == 0, "\(r.line)")
        #expect(try server.layers.take() == "openssl \(0x0303)")
    }

    /// One ciphertext bit flipped: that connection gets bad_record_mac and is closed with a reason;
    /// another connection on the same server carries on.
    @Test func aFlippedBitClosesThatConnectionOnly() throws {
        let server = try Server()
        defer { server.stop() }
        let (other, inbox) = try server.client()
        _ = try server.layers.take()
        let r = try runPeer(["tls_peer.py", "flip", "\(server.port)", server.cert])
        #expect(r.status == 0, "\(r.line)")
        #expect(try server.layers.take().hasPrefix("own "))
        let reason = try server.closes.take()
        #expect(reason.contains("record failed authentication"), "\(reason)")
        other.send(binary: Array("still here".utf8))
        #expect(try inbox.take() == .message(.binary(Array("still here".utf8))))
    }
}
