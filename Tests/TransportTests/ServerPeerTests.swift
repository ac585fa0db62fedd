import Foundation
import Testing
@testable import Transport

/// `ws_client.py SCENARIO PORT` against an echo server on its own loop (`configure`d): the
/// peer's exit status and last line.
func wsClient(_ scenario: String, env: [String: String] = [:],
              _ configure: (inout WebSocketServer.Configuration) -> Void = { _ in }) throws -> (status: Int32, line: String) {
    let h = try LoopHarness()
    defer { h.stop() }
    let port = try startEchoServer(h, configure)
    return try runPeer(["ws_client.py", scenario, "\(port)"], env: env)
}

/// The Swift server driven by Python's `websockets` and raw sockets.
@Suite struct ServerAgainstPythonClient {
    @Test(arguments: [false, true])
    func echoesEverySizeFragmentsTextAndPing(tls: Bool) throws {
        let h = try LoopHarness()
        defer { h.stop() }
        let dir = try temporaryDirectory("transport")
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
        let r = try wsClient("unmasked")
        #expect(r.status == 0, "\(r.line)")
        #expect(r.line == "OK close code 1002, second connection works: True")
    }

    @Test func garbageAfterUpgradeCloses1002() throws {
        let r = try wsClient("garbage")
        #expect(r.line == "OK close code 1002")
    }

    @Test func oversizeMessageCloses1009() throws {
        let r = try wsClient("oversize", env: ["SIZE": "\(100 * 1024)"]) { $0.maxMessageSize = 64 * 1024 }
        #expect(r.line == "OK close code 1009")
    }

    @Test func headerFloodIsAnswered431() throws {
        let r = try wsClient("flood")
        #expect(r.status == 0, "\(r.line)")
        #expect(r.line.contains("431"))
    }

    @Test func slowHeaderSenderIsCutOffAtTheDeadline() throws {
        let r = try wsClient("slowloris") { $0.headerTimeout = .milliseconds(200) }
        #expect(r.status == 0, "\(r.line)")
        #expect(r.line.hasPrefix("OK cut off after"))
    }

    @Test func plainEndpointIsAnswered() throws {
        let r = try wsClient("healthz")
        #expect(r.line == "OK b'HTTP/1.1 200 OK'")
    }

    @Test func maxConnectionsIsEnforced() throws {
        let r = try wsClient("maxconn", env: ["LIMIT": "2"]) { $0.listener.maxConnections = 2 }
        #expect(r.status == 0, "\(r.line)")
        #expect(r.line.hasPrefix("OK over the limit"))
    }
}
