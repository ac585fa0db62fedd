import Foundation
import Testing
@testable import Transport

@Suite struct TLSReload {
    @Test func newConnectionsGetTheNewCertificateWhileOldOnesStayUp() throws {
        let dir = try temporaryDirectory("transport")
        let a = try makeCertificate(in: dir, name: "a")
        let b = try makeCertificate(in: dir, name: "b")
        let live = (cert: dir + "/live.crt", key: dir + "/live.key")
        func install(_ c: (cert: String, key: String)) throws {
            for (src, dst) in [(c.cert, live.cert), (c.key, live.key)] {
                try? FileManager.default.removeItem(atPath: dst)
                try FileManager.default.copyItem(atPath: src, toPath: dst)
            }
        }
        try install(a)
        let ctx = try TLSServerContext(certificateFile: live.cert, keyFile: live.key)
        let h = try LoopHarness()
        defer { h.stop() }
        let port = try startEchoServer(h, tls: ctx)
        let pinA = try TLSClientContext.fingerprint(ofPEMFile: a.cert)
        let pinB = try TLSClientContext.fingerprint(ofPEMFile: b.cert)
        #expect(pinA != pinB)
        func config(_ pin: [UInt8]) throws -> WebSocketClient.Configuration {
            WebSocketClient.Configuration(host: "127.0.0.1", port: port, tls: try TLSClientContext(trust: .pinnedSHA256(pin)))
        }

        let oldInbox = Inbox<WSEvent>()
        let old = try connectClient(h, try config(pinA), oldInbox)

        try install(b)
        try ctx.reload() // what the relay does on SIGHUP

        let refused = Result { try connectClient(h, try config(pinA), Inbox<WSEvent>()) }
        guard case .failure(let e) = refused else { Issue.record("old pin accepted after reload"); return }
        #expect(e as? TransportError == .certificatePinMismatch)

        let newInbox = Inbox<WSEvent>()
        let new = try connectClient(h, try config(pinB), newInbox)
        new.send(binary: [2])
        #expect(try newInbox.take() == .message(.binary([2])))

        old.send(binary: [1]) // the connection made before the reload still works
        #expect(try oldInbox.take() == .message(.binary([1])))
        old.close(code: .goingAway, reason: "done")
        #expect(try oldInbox.take() == .closed(1001, "done"))

        // A broken file keeps the current certificate and says why.
        try "not a certificate".write(toFile: live.cert, atomically: true, encoding: .utf8)
        #expect(throws: TransportError.self) { try ctx.reload() }
        let still = try connectClient(h, try config(pinB), Inbox<WSEvent>())
        still.close()
    }
}
