import Foundation
import Glibc
import Inference
import Testing
@testable import LocalAPI

/// `guest serve` refuses what a web page in the user's browser can send, over real sockets:
/// a rebound `Host` (DNS rebinding), a cross-site `Origin`, a POST not typed
/// `application/json` (a "simple" cross-site request needs no preflight). Refused before the
/// brain is asked: nothing is spent. The official clients keep working (OpenAIClientTests,
/// OllamaClientTests run them against the same server).
@Suite struct WebPageRefusalTests {
    static let chat = #"{"model":"m","messages":[{"role":"user","content":"hi"}]}"#

    /// One raw request; returns the status code, the head and the body.
    func ask(_ port: UInt16, _ method: String, _ path: String, host: String?, headers: [String] = [],
             body: String = "") async throws -> (status: Int, head: String, body: String) {
        var lines = ["\(method) \(path) HTTP/1.1"]
        if let host { lines.append("Host: \(host)") }
        lines += headers
        if !body.isEmpty || method == "POST" { lines.append("Content-Length: \(body.utf8.count)") }
        let text = try await HTTPServerTests().exchange(port, lines.joined(separator: "\r\n") + "\r\n\r\n" + body)
        let parts = text.components(separatedBy: "\r\n\r\n")
        let status = Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0
        return (status, parts[0], parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    @Test func aRebindingHostIsRefusedBeforeTheBrainIsAsked() async throws {
        let brain = FakeBrain(events: FakeBrain.hello)
        let h = try ServeHarness(brain: brain)
        defer { h.stop() }
        let json = ["Content-Type: application/json"]
        for host in ["evil.example", "evil.example:\(h.port)", "127.0.0.1.evil.example", "localhost.evil.example:80", "0.0.0.0:\(h.port)"] {
            let r = try await ask(h.port, "POST", "/v1/chat/completions", host: host, headers: json, body: Self.chat)
            #expect(r.status == 403, "\(host): \(r.head)")
            #expect(r.body.contains("is not a loopback name"), "\(r.body)")
            #expect(r.head.lowercased().contains("content-type: application/json"))
        }
        let models = try await ask(h.port, "GET", "/api/tags", host: "rebound.example:\(h.port)")
        #expect(models.status == 403 && models.body.hasPrefix(#"{"error":"#), "\(models.body)")
        #expect(brain.requests.isEmpty)
        for host in ["127.0.0.1:\(h.port)", "localhost:\(h.port)", "LocalHost", "127.8.9.10", "[::1]:\(h.port)", "[::1]"] {
            #expect(try await ask(h.port, "GET", "/v1/models", host: host).status == 200, "\(host)")
        }
    }

    @Test func aCrossSitePageIsRefusedAndServesOwnOriginPasses() async throws {
        let brain = FakeBrain(events: FakeBrain.hello)
        let h = try ServeHarness(brain: brain)
        defer { h.stop() }
        let host = "127.0.0.1:\(h.port)"
        // The attack: a page's fetch() with a text/plain body, which needs no preflight.
        let page = try await ask(h.port, "POST", "/v1/chat/completions", host: host,
                                 headers: ["Origin: https://evil.example", "Content-Type: text/plain;charset=UTF-8"], body: Self.chat)
        #expect(page.status == 403 && page.body.contains("--allow-origin"), "\(page.head)\n\(page.body)")
        let null = try await ask(h.port, "POST", "/api/chat", host: host, headers: ["Origin: null", "Content-Type: application/json"],
                                 body: Self.chat)
        #expect(null.status == 403)
        let preflight = try await ask(h.port, "OPTIONS", "/v1/chat/completions", host: host,
                                      headers: ["Origin: https://evil.example", "Access-Control-Request-Method: POST"])
        #expect(preflight.status == 403 && !preflight.head.contains("Access-Control-Allow-Origin"))
        #expect(brain.requests.isEmpty)
        let own = try await ask(h.port, "POST", "/v1/chat/completions", host: host,
                                headers: ["Origin: http://\(host)", "Content-Type: application/json"], body: Self.chat)
        #expect(own.status == 200, "\(own.head)")
    }

    @Test func aPostMustBeTypedJSON() async throws {
        let brain = FakeBrain(events: FakeBrain.hello)
        let h = try ServeHarness(brain: brain)
        defer { h.stop() }
        let host = "127.0.0.1:\(h.port)"
        for type in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"] {
            let r = try await ask(h.port, "POST", "/api/chat", host: host, headers: ["Content-Type: \(type)"], body: Self.chat)
            #expect(r.status == 415, "\(type): \(r.head)")
            #expect(r.body.contains("Content-Type: application/json"), "\(r.body)")
        }
        // Untyped with an Origin (any: a browser sent it, even from serve's own page) is refused.
        for origin in ["http://\(host)", "https://evil.example"] {
            let r = try await ask(h.port, "POST", "/api/chat", host: host, headers: ["Origin: \(origin)"], body: Self.chat)
            #expect(r.status == (origin.hasPrefix("http://127") ? 415 : 403), "untyped from \(origin): \(r.head)")
        }
        #expect(brain.requests.isEmpty)
        // Untyped without an Origin is a program (litellm's ollama_chat sends JSON so): answered.
        let untyped = try await ask(h.port, "POST", "/api/chat", host: host, headers: [],
                                    body: #"{"model":"m","stream":false,"messages":[{"role":"user","content":"hi"}]}"#)
        #expect(untyped.status == 200, "\(untyped.head)")
        #expect(brain.requests.count == 1)
        let typed = try await ask(h.port, "POST", "/api/chat", host: host, headers: ["Content-Type: Application/JSON; charset=utf-8"],
                                  body: #"{"model":"m","stream":false,"messages":[{"role":"user","content":"hi"}]}"#)
        #expect(typed.status == 200, "\(typed.head)")
        #expect(brain.requests.count == 2)
    }

    @Test func anAllowedOriginGetsCORSAndItsPreflight() async throws {
        var config = ServeConfiguration(port: 0)
        try config.allow(origin: "http://localhost:3000")
        try config.allow(origin: "https://App.Example/")
        let h = try ServeHarness(brain: FakeBrain(events: FakeBrain.hello), configuration: config)
        defer { h.stop() }
        let host = "127.0.0.1:\(h.port)"
        let preflight = try await ask(h.port, "OPTIONS", "/v1/chat/completions", host: host,
                                      headers: ["Origin: http://localhost:3000", "Access-Control-Request-Method: POST",
                                                "Access-Control-Request-Headers: content-type, authorization"])
        #expect(preflight.status == 204, "\(preflight.head)")
        #expect(preflight.head.contains("Access-Control-Allow-Origin: http://localhost:3000"))
        #expect(preflight.head.contains("Access-Control-Allow-Headers: Authorization, Content-Type"))
        let chat = try await ask(h.port, "POST", "/v1/chat/completions", host: host,
                                 headers: ["Origin: https://app.example", "Content-Type: application/json"], body: Self.chat)
        #expect(chat.status == 200 && chat.head.contains("Access-Control-Allow-Origin: https://app.example"), "\(chat.head)")
        let other = try await ask(h.port, "GET", "/v1/models", host: host, headers: ["Origin: http://localhost:3001"])
        #expect(other.status == 403)
        #expect(throws: LocalAPIError.self) { try config.allow(origin: "localhost:3000") }
        #expect(throws: LocalAPIError.self) { try config.allow(origin: "http://x/path") }
    }

    @Test func aTokenFileIsMade0600AndTheOpenAIClientUsesItsToken() async throws {
        let dir = try temporaryDirectory("token-file")
        let path = dir + "/serve.token"
        let made = try TokenFile.load(path)
        #expect(made.created)
        let first = ServeConfiguration(port: 0, token: made.token)
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let token = try #require(first.token)
        #expect(token.count == 64 && token.allSatisfy(\.isHexDigit))
        #expect(try TokenFile.load(path).token == token)
        let h = try ServeHarness(brain: FakeBrain(events: FakeBrain.hello), configuration: first)
        defer { h.stop() }
        // OPENAI_API_KEY=$(cat FILE): the client sends it as the bearer token.
        #expect(try await runClient("openai_client.py", [h.base + "/v1", token, "whole"])["content"] as? String == "Hello, Zürich ☀️")
        #expect(try await runClient("openai_client.py", [h.base + "/v1", "guess", "whole"])["status"] as? Int == 401)
        chmod(path, 0o644)
        do {
            _ = try TokenFile.load(path)
            Issue.record("a token file others may read was accepted")
        } catch {
            #expect("\(error)".contains("run chmod 600 \(path)"), "\(error)")
        }
    }
}
