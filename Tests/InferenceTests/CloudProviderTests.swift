import Foundation
import Glibc
import Testing
@testable import Inference

/// The cloud providers against the replay peer: recorded streams, split at awkward boundaries.
@Suite struct CloudProviderTests {
    let quick = HTTPTimeouts(connect: .seconds(5), firstByte: .seconds(20), idle: .seconds(20))

    func anthropic(_ id: String, _ scenario: String, key: String = "sk-ant-api03-test") throws -> AnthropicProvider {
        AnthropicProvider(keys: .fixed(key), baseURL: try ReplayPeer.url(id, "anthropic", scenario), timeouts: quick)
    }

    func openAI(_ id: String, _ scenario: String, keys: APIKeySource = .fixed("sk-proj-test")) throws -> OpenAIProvider {
        OpenAIProvider(keys: keys, baseURL: try ReplayPeer.url(id, "openai", scenario), timeouts: quick)
    }

    @Test(arguments: ["anthropic_tools", "anthropic_tools-crlf"])
    func anthropicStreamWithToolUse(_ scenario: String) async throws {
        let id = testID()
        let (events, error) = await drain(try anthropic(id, scenario).stream(weatherRequest))
        #expect(error == nil)
        #expect(events == anthropicToolsEvents)
        let r = try #require(try await ReplayPeer.records(id).first)
        #expect(r["path"] as? String == "/v1/messages")
        let h = r["headers"] as! [String: String]
        #expect(h["x-api-key"] == "sk-ant-api03-test")
        #expect(h["anthropic-version"] == "2023-06-01")
        #expect(h["authorization"] == nil)
        let body = r["body"] as! [String: Any]
        #expect(body["system"] as? String == "Be brief.")
        #expect((body["tools"] as? [[String: Any]])?.first?["input_schema"] != nil)
    }

    @Test func anthropicInBandErrorAfter200IsAFailure() async throws {
        let (events, error) = await drain(try anthropic(testID(), "anthropic_error").stream(weatherRequest))
        #expect(error as? InferenceError == .inBand("Overloaded"))
        #expect(events == Array(anthropicToolsEvents.prefix(2)))
    }

    @Test func anthropicStreamCutBeforeMessageStopIsInterrupted() async throws {
        let (events, error) = await drain(try anthropic(testID(), "anthropic_cut").stream(weatherRequest))
        #expect(error as? InferenceError == .interrupted)
        #expect(!events.contains { if case .done = $0 { true } else { false } })
    }

    @Test(arguments: [(401, "invalid x-api-key"), (429, "Number of request tokens has exceeded your per-minute rate limit"),
                      (529, "Overloaded")])
    func anthropicHTTPErrors(_ status: Int, _ message: String) async throws {
        let (events, error) = await drain(try anthropic(testID(), "s\(status)").stream(weatherRequest))
        #expect(events.isEmpty)
        #expect(error as? InferenceError == .http(status: status, message: message))
    }

    @Test func openAIStreamWithToolCallsAndUsage() async throws {
        let id = testID()
        let (events, error) = await drain(try openAI(id, "openai_tools").stream(weatherRequest))
        #expect(error == nil)
        #expect(events == openAIToolsEvents)
        let r = try #require(try await ReplayPeer.records(id).first)
        #expect(r["path"] as? String == "/v1/chat/completions")
        #expect((r["headers"] as! [String: String])["authorization"] == "Bearer sk-proj-test")
        let body = r["body"] as! [String: Any]
        #expect((body["stream_options"] as? [String: Any])?["include_usage"] as? Bool == true)
        #expect(((body["tools"] as? [[String: Any]])?.first?["function"] as? [String: Any])?["name"] as? String == "get_weather")
    }

    @Test func openAIInBandErrorAndCutAndHTTPErrors() async throws {
        let inBand = await drain(try openAI(testID(), "openai_error").stream(weatherRequest))
        #expect(inBand.error as? InferenceError == .inBand("The server had an error while processing your request. Sorry about that!"))
        let cut = await drain(try openAI(testID(), "openai_cut").stream(weatherRequest))
        #expect(cut.error as? InferenceError == .interrupted)
        let unauthorized = await drain(try openAI(testID(), "s401").stream(weatherRequest))
        #expect(unauthorized.error as? InferenceError == .http(status: 401, message: "Incorrect API key provided: sk-proj-********wxyz."))
        let limited = await drain(try openAI(testID(), "s429").stream(weatherRequest))
        if case .http(429, _)? = limited.error as? InferenceError {} else { Issue.record("expected 429, got \(String(describing: limited.error))") }
    }

    @Test func keyIsReadPerRequestSoRotationTakesEffectOnTheNextCall() async throws {
        let dir = try TempDir("keys")
        defer { dir.cleanup() }
        let slot = dir.path("openai")
        func put(_ key: String, mode: mode_t = 0o600) throws {
            _ = FileManager.default.createFile(atPath: slot, contents: Data(key.utf8))
            chmod(slot, mode)
        }
        let id = testID()
        let provider = try openAI(id, "openai_tools", keys: .file(slot))
        try put("sk-first-key")
        #expect(await drain(provider.stream(weatherRequest)).error == nil)
        try put("sk-second-key\n")
        #expect(await drain(provider.stream(weatherRequest)).error == nil)
        let auth = try await ReplayPeer.records(id).map { ($0["headers"] as! [String: String])["authorization"] }
        #expect(auth == ["Bearer sk-first-key", "Bearer sk-second-key"])
        // A slot others may read is no key: the call fails before any request.
        try put("sk-third-key", mode: 0o644)
        let refused = await drain(provider.stream(weatherRequest))
        if case .unreachable(let m)? = refused.error as? InferenceError { #expect(!m.contains("sk-third")) } else {
            Issue.record("expected unreachable, got \(String(describing: refused.error))")
        }
        #expect(try await ReplayPeer.records(id).count == 2)
    }

    @Test func ollamaProviderSendsItsModelTagAndADummyKey() async throws {
        let id = testID()
        let provider = OllamaProvider(baseURL: try ReplayPeer.url(id, "openai", "openai_tools"), model: "qwen3:0.6b", timeouts: quick)
        #expect(provider.brain == .localEndpoint)
        let (events, error) = await drain(provider.stream(weatherRequest))
        #expect(error == nil)
        #expect(events == openAIToolsEvents)
        let r = try #require(try await ReplayPeer.records(id).first)
        #expect((r["body"] as! [String: Any])["model"] as? String == "qwen3:0.6b")
        #expect((r["headers"] as! [String: String])["authorization"] == "Bearer ollama")
    }

    @Test func defaultsPointAtTheRealClouds() {
        #expect(OpenAIProvider(keys: .fixed("k")).baseURL == "https://api.openai.com")
        #expect(OpenAIProvider(keys: .fixed("k")).brain == .openAI)
        #expect(AnthropicProvider(keys: .fixed("k")).baseURL == "https://api.anthropic.com")
        #expect(AnthropicProvider(keys: .fixed("k")).brain == .anthropic)
    }
}
