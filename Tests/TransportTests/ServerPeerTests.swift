import Foundation
import Testing
@testable import Transport

/// The Swift server driven by Python's `websockets` and raw sockets.
@Suite struct ServerAgainstPythonClient {
    @Test(arguments: [false, true])
    func echoesEverySizeFragmentsTextAndPing(tls: Bool) throws {
        let h = try LoopHarness()
        defer { h.stop() }
        let dir = try temporaryDirectory()
        var args: [String] = []
        var ctx: TLSServerContext?
        if tls {
            let c = try makeCertificate(in: dir, name: "a")
            ctx = try TLSServerContext(certificateFile: c.cert, keyFile: c.key)
            args = [c.cert]
        }
        let port = try startEchoServer(h, tls: ctx)
        let r = try runPeer(["ws_client.py", "echo", "\(port)"] + args)
        #expect(r.status == 0, "\(r.line)")
        #expect(r.line.hasPrefix("OK echoed 7 sizes"))
    }

    @Test func unmaskedClientFrameCloses1002AndOthersKeepWorking() throws {
        let h = try LoopHarness()
        defer { h.stop() }
        let port = try startEchoServer(h)
        let r = try runPeer(["ws_client.py", "unmasked", "\(port)"])
        #expect(r.status == 0, "\(r.line)")
        #expect(r.line == "OK close code 1002, second connection works: True")
    }

    @Test func garbageAfterUpgradeCloses1002() throws {
        let h = try LoopHarness()
        defer { h.stop() }
        let port = try startEchoServer(h)
        let r = try runPeer(["ws_client.py", "garbage", "\(port)"])
        #expect(r.line == "OK close code 1002")
    }

    @Test func oversizeMessageCloses1009() throws {
        let h = try LoopHarness()
        defer { h.stop() }
        let port = try startEchoServer(h) { $0.maxMessageSize = 64 * 1024 }
        let r = try runPeer(["ws_client.py", "oversize", "\(port)"], env: ["SIZE": "\(100 * 1024)"])
        #expect(r.line == "OK close code 1009")
    }

    @Test func headerFloodIsAnswered431() throws {
        let h = try LoopHarness()
        defer { h.stop() }
        let port = try startEchoServer(h)
        let r = try runPeer(["ws_client.py", "flood", "\(port)"])
        #expect(r.status == 0, "\(r.line)")
        #expect(r.line.contains("431"))
    }

    @Test func slowHeaderSenderIsCutOffAtTheDeadline() throws {
        let h = try LoopHarness()
        defer { h.stop() }
        let port = try startEchoServer(h) { $0.headerTimeout = .milliseconds(200) }
        let r = try runPeer(["ws_client.py", "slowloris", "\(port)"])
        #expect(r.status == 0, "\(r.line)")
        #expect(r.line.hasPrefix("OK cut off after"))
    }

    @Test func plainEndpointIsAnswered() throws {
        let h = try LoopHarness()
        defer { h.stop() }
        let port = try startEchoServer(h)
        let r = try runPeer(["ws_client.py", "healthz", "\(port)"])
        #expect(r.line == "OK b'HTTP/1.1 200 OK'")
    }

    @Test func maxConnectionsIsEnforced() throws {
        let h = try LoopHarness()
        defer { h.stop() }
        let port = try startEchoServer(h) { $0.listener.maxConnections = 2 }
        let r = try runPeer(["ws_client.py", "maxconn", "\(port)"], env: ["LIMIT": "2"])
        #expect(r.status == 0, "\(r.line)")
        #expect(r.line.hasPrefix("OK over the limit"))
    }
}
