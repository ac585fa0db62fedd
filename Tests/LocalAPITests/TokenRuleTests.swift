import Foundation
import Testing
@testable import LocalAPI

/// Loopback by default; a non-loopback bind needs `--allow-remote` and a token, checked on every request.
@Suite struct TokenRuleTests {
    @Test func nonLoopbackNeedsAllowRemoteAndAToken() throws {
        #expect(throws: LocalAPIError.remoteNeedsToken("0.0.0.0")) { try ServeCommand.parse(["--listen", "0.0.0.0:8080"]) }
        #expect(throws: LocalAPIError.remoteNeedsToken("0.0.0.0")) {
            try ServeCommand.parse(["--listen", "0.0.0.0:8080", "--allow-remote"])
        }
        #expect(throws: LocalAPIError.remoteNeedsToken("0.0.0.0")) { try ServeCommand.parse(["--listen", "0.0.0.0:8080", "--token", "t"]) }
        let ok = try ServeCommand.parse(["--listen", "0.0.0.0:8080", "--allow-remote", "--token", "s3cret"])
        #expect(ok.host == "0.0.0.0" && ok.port == 8080 && ok.token == "s3cret")
        let env = try ServeCommand.parse(["--listen", "0.0.0.0:9", "--allow-remote"], environment: ["HOMEBASE_SERVE_TOKEN": "e"])
        #expect(env.token == "e")
        let local = try ServeCommand.parse([])
        #expect(local.host == "127.0.0.1" && local.port == ServeConfiguration.defaultPort && local.token == nil)
        #expect(try ServeCommand.parse(["--listen", "[::1]:7"]).host == "::1")
        #expect(throws: LocalAPIError.self) { try ServeCommand.parse(["--listen", "localhost"]) }
        #expect(throws: LocalAPIError.self) { try ServeCommand.parse(["--bogus"]) }
    }

    @Test func helpAndBadFlagsExitCodes() async {
        let printed = PrintedLines()
        #expect(await ServeCommand.run(arguments: ["--help"], output: { printed.add($0) }, router: { _ in fatalError("unused") },
                                 models: { [] }) == 0)
        #expect(await ServeCommand.run(arguments: ["--listen", "0.0.0.0:1"], output: { printed.add($0) },
                                 router: { _ in fatalError("unused") }, models: { [] }) == 2)
        #expect(printed.text.contains("usage: guest serve"))
        #expect(printed.text.contains("--allow-remote"))
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
