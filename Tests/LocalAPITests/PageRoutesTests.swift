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

    /// The actions' fake (labelled): records what reached it; `models/pull` reports two progress lines.
    final class Actions: Sendable {
        let seen = Mutex<[String]>([])
        func act(_ method: String, _ name: String, _ body: [UInt8], _ progress: @escaping @Sendable ([UInt8]) -> Void) async -> PageReply {
            seen.withLock { $0.append("\(method) \(name) \(String(decoding: body, as: UTF8.self))") }
            if name == "models/pull" {
                progress(Array(#"{"received":1,"total":2}"#.utf8)); progress(Array(#"{"received":2,"total":2}"#.utf8))
            }
            if name == "bad" { return PageReply(status: 400, body: Array(#"{"ok":false,"error":"no"}"#.utf8)) }
            return PageReply(body: Array(#"{"ok":true}"#.utf8))
        }
    }

    static func actHarness(token: String? = nil) throws -> (ServeHarness, Actions) {
        let a = Actions()
        let page = PageSource(interval: .seconds(60), act: a.act) { Array("{}".utf8) }
        var config = ServeConfiguration(port: 0)
        config.token = token
        return (try ServeHarness(brain: FakeBrain(events: FakeBrain.hello), configuration: config, page: page), a)
    }

    static func post(_ port: UInt16, _ path: String, _ body: String, origin: String? = nil, type: String = "application/json",
                     extra: String = "") async throws -> String {
        let o = origin.map { "Origin: \($0)\r\n" } ?? ""
        return try await exchange(port, "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(o)\(extra)Content-Type: \(type)\r\n"
                                  + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)") { _ in false }
    }

    @Test func anActionGetsItsBodyAndAnswersItsOwnStatus() async throws {
        let (h, a) = try Self.actHarness()
        defer { h.stop() }
        let r = try await Self.post(h.port, "/homebase/act/settings", #"{"name":"model.source","value":"on-device"}"#,
                                    origin: "http://127.0.0.1:\(h.port)")
        #expect(r.hasPrefix("HTTP/1.1 200") && r.contains("Content-Type: application/json") && r.hasSuffix(#"{"ok":true}"#), "\(r)")
        let bad = try await Self.post(h.port, "/homebase/act/bad", "{}")
        #expect(bad.hasPrefix("HTTP/1.1 400") && bad.hasSuffix(#"{"ok":false,"error":"no"}"#), "\(bad)")
        let get = try await Self.get(h.port, "/homebase/act/models")
        #expect(get.hasPrefix("HTTP/1.1 200"), "\(get)")
        #expect(a.seen.withLock { $0 } == [#"POST settings {"name":"model.source","value":"on-device"}"#, "POST bad {}", "GET models "])
    }

    @Test func aPullStreamsItsProgressThenItsReply() async throws {
        let (h, _) = try Self.actHarness()
        defer { h.stop() }
        let r = try await Self.post(h.port, "/homebase/act/models/pull", #"{"target":"tiny"}"#)
        #expect(r.contains("Content-Type: application/x-ndjson"), "\(r)")
        let body = r.components(separatedBy: "\r\n\r\n").dropFirst().joined()
        #expect(body.contains(#"{"received":1,"total":2}"# + "\n") && body.contains(#"{"received":2,"total":2}"# + "\n")
                && body.contains(#"{"ok":true}"# + "\n"), "\(body)")
    }

    @Test func anotherOriginsPostNeverReachesAnAction() async throws {
        let (h, a) = try Self.actHarness()
        defer { h.stop() }
        let foreign = try await Self.post(h.port, "/homebase/act/keys/add", #"{"provider":"openai","key":"sk-x"}"#,
                                          origin: "http://evil.example")
        #expect(foreign.hasPrefix("HTTP/1.1 403"), "\(foreign.prefix(200))")
        // A form post (no preflight) is refused for its type, before any action.
        let form = try await Self.post(h.port, "/homebase/act/settings", "name=model.source&value=external", type: "text/plain")
        #expect(form.hasPrefix("HTTP/1.1 415"), "\(form.prefix(200))")
        let rebound = try await Self.exchange(h.port, "POST /homebase/act/settings HTTP/1.1\r\nHost: evil.example\r\n"
                                              + "Content-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}") { _ in false }
        #expect(rebound.hasPrefix("HTTP/1.1 403"), "\(rebound.prefix(200))")
        #expect(a.seen.withLock { $0 }.isEmpty)
    }

    @Test func withATokenAnActionNeedsIt() async throws {
        let (h, a) = try Self.actHarness(token: "page-token")
        defer { h.stop() }
        let none = try await Self.post(h.port, "/homebase/act/settings", "{}")
        #expect(none.hasPrefix("HTTP/1.1 401"), "\(none.prefix(200))")
        let with = try await Self.post(h.port, "/homebase/act/settings", "{}", extra: "Authorization: Bearer page-token\r\n")
        #expect(with.hasPrefix("HTTP/1.1 200"), "\(with.prefix(200))")
        #expect(a.seen.withLock { $0 }.count == 1)
        // The page's own files load without it (the page then asks for the token); what they read does not.
        for path in ["/", "/homebase/page.js", "/homebase/controls.js", "/homebase/page.css"] {
            let r = try await Self.get(h.port, path, accept: "text/html")
            #expect(r.hasPrefix("HTTP/1.1 200"), "\(path): \(r.prefix(200))")
        }
        for path in ["/homebase/status", "/homebase/events", "/homebase/act/settings", "/v1/models"] {
            let r = try await Self.get(h.port, path)
            #expect(r.hasPrefix("HTTP/1.1 401"), "\(path): \(r.prefix(200))")
        }
        let probe = try await Self.get(h.port, "/")
        #expect(probe.hasPrefix("HTTP/1.1 401"), "a probe of / still needs the token: \(probe.prefix(200))")
        let js = try await Self.get(h.port, "/homebase/page.js")
        #expect(js.contains("sessionStorage") && js.contains("Authorization"))
    }

    /// Every element the scripts look up by id is in the page (a missing one stops the script at load).
    @Test func everyIdTheScriptsUseIsInThePage() throws {
        for script in [PageScript.text, PageControls.text] {
            let ids = script.components(separatedBy: "$(\"").dropFirst().compactMap { $0.split(separator: "\"").first.map(String.init) }
            #expect(!ids.isEmpty)
            for id in Set(ids) { #expect(PageHTML.text.contains("id=\"\(id)\""), "no element with id \(id)") }
        }
    }

    @Test func aReadOnlyPageAnswers404ForActions() async throws {
        let (h, _) = try Self.harness()
        defer { h.stop() }
        let r = try await Self.post(h.port, "/homebase/act/settings", "{}")
        #expect(r.hasPrefix("HTTP/1.1 404") && r.contains("read-only"), "\(r)")
    }
}
