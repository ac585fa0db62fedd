import Foundation
import Testing
@testable import LocalAPI

/// Loopback by default; a non-loopback bind needs `allowRemote` and a token, checked on every
/// request. (The flags that set them are `guest serve`'s: ServeFlagsTests.)
@Suite struct TokenRuleTests {
    @Test func nonLoopbackNeedsAllowRemoteAndAToken() throws {
        #expect(throws: LocalAPIError.remoteNeedsToken("0.0.0.0")) { try ServeConfiguration(host: "0.0.0.0", port: 8080).validate() }
        #expect(throws: LocalAPIError.remoteNeedsToken("0.0.0.0")) {
            try ServeConfiguration(host: "0.0.0.0", port: 8080, allowRemote: true).validate()
        }
        #expect(throws: LocalAPIError.remoteNeedsToken("0.0.0.0")) {
            try ServeConfiguration(host: "0.0.0.0", port: 8080, token: "t").validate()
        }
        #expect(throws: LocalAPIError.remoteNeedsToken("0.0.0.0")) {
            try ServeConfiguration(host: "0.0.0.0", port: 8080, allowRemote: true, token: "").validate()
        }
        try ServeConfiguration(host: "0.0.0.0", port: 8080, allowRemote: true, token: "s3cret").validate()
        try ServeConfiguration().validate()
        let v6 = try ServeConfiguration.parseListen("[::1]:7"), bare = try ServeConfiguration.parseListen(":9")
        #expect(v6.host == "::1" && v6.port == 7 && bare.host == "127.0.0.1" && bare.port == 9)
        #expect(throws: LocalAPIError.invalidListen("localhost")) { try ServeConfiguration.parseListen("localhost") }
    }

    @Test func tokenIsCheckedOnEveryRequestOfARemoteBind() async throws {
        let config = ServeConfiguration(host: "0.0.0.0", port: 0, allowRemote: true, token: "tok-123")
        let h = try ServeHarness(brain: FakeBrain(events: FakeBrain.hello), configuration: config)
        defer { h.stop() }
        let denied = try await runClient("openai_client.py", [h.base + "/v1", "wrong", "whole"])
        #expect(denied["raised"] as? String == "AuthenticationError")
        #expect(denied["status"] as? Int == 401)
        #expect(try await runClient("openai_client.py", [h.base + "/v1", "tok-123", "models"])["models"] as? [String] == ["fake-brain", "fake-brain:tools"])
        let ollamaDenied = try await runClient("ollama_client.py", [h.base, "none", "list"])
        #expect(ollamaDenied["status"] as? Int == 401)
        #expect(try await runClient("ollama_client.py", [h.base, "tok-123", "stream"])["content"] as? String == "Hello, Zürich ☀️")
        for path in ["/v1/models", "/api/tags", "/api/version", "/"] {
            #expect(try await fetch(h.base + path).status == 401, "\(path)")
            #expect(try await fetch(h.base + path, token: "tok-123").status == 200, "\(path)")
        }
        #expect(try await fetch(h.base + "/v1/models", token: "tok-1234").status == 401)
    }

    @Test func tokenComparison() {
        #expect(tokensMatch("abc", "abc"))
        #expect(!tokensMatch("abd", "abc"))
        #expect(!tokensMatch("ab", "abc"))
        #expect(ServeConfiguration.isLoopback("127.0.0.1") && ServeConfiguration.isLoopback("127.1.2.3") && ServeConfiguration.isLoopback("::1"))
        #expect(!ServeConfiguration.isLoopback("0.0.0.0") && !ServeConfiguration.isLoopback("192.168.1.2") && !ServeConfiguration.isLoopback("::"))
    }
}

final class PrintedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines = ""
    func add(_ s: String) { lock.lock(); lines += s; lock.unlock() }
    var text: String { lock.lock(); defer { lock.unlock() }; return lines }
}
