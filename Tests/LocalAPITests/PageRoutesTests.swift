import Dispatch
import Foundation
import Glibc
import Synchronization
import Testing
import TestSupport
@testable import LocalAPI

/// `guest serve`'s page and its status endpoints on raw sockets (the browser's own checks are
/// Tests/browser, driven by EndToEndTests.PageBrowserEndToEndTests). The status source here is
/// a counter (a fake, labelled): the guest gives `guest status --json`'s value.
@Suite struct PageRoutesTests {
    final class Counter: Sendable {
        let n = Mutex(0)
        var value: Int { n.withLock { $0 } }
        func next() -> Int { n.withLock { $0 += 1; return $0 } }
    }

    static func harness() throws -> (ServeHarness, Counter) {
        let n = Counter()
        let page = PageSource(interval: .milliseconds(20)) { Array(#"{"count":\#(n.next())}"#.utf8) }
        return (try ServeHarness(brain: FakeBrain(events: FakeBrain.hello), page: page), n)
    }

    /// Sends `request`, reads until `enough` holds for what came (or the server closes).
    static func exchange(_ port: UInt16, _ request: String, until enough: @escaping @Sendable (String) -> Bool) async throws -> String {
        try await withCheckedThrowingContinuation { done in
            DispatchQueue.global().async {
                done.resume(with: Result {
                    guard let fd = connectLoopback(Int(port), receiveTimeout: 30) else { throw TestSetupError("connect failed") }
                    defer { close(fd) }
                    var bytes = Array(request.utf8)
                    _ = send(fd, &bytes, bytes.count, 0)
                    var out: [UInt8] = [], buf = [UInt8](repeating: 0, count: 4096)
                    while !enough(String(decoding: out, as: UTF8.self)) {
                        let n = recv(fd, &buf, buf.count, 0)
                        if n <= 0 { break }
                        out += buf[0..<n]
                    }
                    return String(decoding: out, as: UTF8.self)
                })
            }
        }
    }

    static func get(_ port: UInt16, _ path: String, host: String = "127.0.0.1", accept: String = "*/*") async throws -> String {
        try await exchange(port, "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nAccept: \(accept)\r\nConnection: close\r\n\r\n") { _ in false }
    }

    @Test func aBrowserGetsThePageWithItsOwnOriginOnlyAndProbesKeepOllamasText() async throws {
        let (h, _) = try Self.harness()
        defer { h.stop() }
        let page = try await Self.get(h.port, "/", accept: "text/html,application/xhtml+xml")
        #expect(page.hasPrefix("HTTP/1.1 200"), "\(page.prefix(300))")
        #expect(page.contains("Content-Type: text/html; charset=utf-8"))
        #expect(page.contains("Content-Security-Policy: default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self';"))
        #expect(page.contains(#"<script src="/homebase/page.js" defer></script>"#))
        #expect(!page.contains("http://") && !page.contains("https://"), "the page names no other origin")
        let js = try await Self.get(h.port, "/homebase/page.js")
        #expect(js.contains("text/javascript") && js.contains("/v1/chat/completions") && js.contains("AbortController"))
        #expect(!js.contains("http://") && !js.contains("https://"), "the script names no other origin")
        let probe = try await Self.get(h.port, "/")
        #expect(probe.hasSuffix("\r\n\r\n" + LocalAPIServer.rootText), "\(probe)")
    }

    @Test func statusIsTheSourcesValueAndEventsPushItAgain() async throws {
        let (h, _) = try Self.harness()
        defer { h.stop() }
        let status = try await Self.get(h.port, "/homebase/status")
        #expect(status.contains("Content-Type: application/json") && status.hasSuffix(#"{"count":1}"#), "\(status)")
        let events = try await Self.exchange(h.port, "GET /homebase/events HTTP/1.1\r\nHost: localhost\r\n\r\n") {
            $0.components(separatedBy: "event: status\ndata: ").count > 3
        }
        #expect(events.contains("Content-Type: text/event-stream"), "\(events)")
        #expect(events.contains("event: status\ndata: {\"count\":2}\n\n") && events.contains("event: status\ndata: {\"count\":3}\n\n"),
                "\(events)")
    }

    @Test func aReboundHostGetsNeitherThePageNorTheStatus() async throws {
        let (h, n) = try Self.harness()
        defer { h.stop() }
        for path in ["/", "/homebase/status", "/homebase/events", "/homebase/page.js"] {
            let r = try await Self.get(h.port, path, host: "evil.example:\(h.port)", accept: "text/html")
            #expect(r.hasPrefix("HTTP/1.1 403"), "\(path): \(r.prefix(200))")
        }
        #expect(n.value == 0, "the status was never read for a refused request")
    }
}
