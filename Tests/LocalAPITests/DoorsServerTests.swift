import Foundation
import Inference
import Testing
import Transport
@testable import LocalAPI

/// The endpoints of #17 over real HTTP on loopback: routes, headers, probes, memory, keep-alives.
@Suite struct DoorsServerTests {
    static let detailed: [ListedModel] = [
        ListedModel(name: "qwen3:8b", brain: .ownHomebase,
                    details: ModelDetails(family: "qwen3", parameterSize: "8.2B", quantization: "Q4_K_M", contextLength: 40960,
                                          capabilities: ["completion", "tools"])),
        ListedModel(name: "tiny", brain: .onDevice),
    ]

    /// Start-up probes answer from the model list while the brain never says a word.
    @Test func probesAnswerWithoutTheBrain() async throws {
        let brain = GatedBrain()
        let h = try DoorsHarness(brain: brain, models: Self.detailed)
        defer { h.stop() }
        let show = try await send(h.base + "/api/show", body: #"{"model":"qwen3:8b"}"#)
        #expect(show.status == 200)
        let s = object(Array(show.body.utf8))
        #expect(s["capabilities"] as? [String] == ["completion", "tools"])
        #expect((s["model_info"] as? [String: Any])?["qwen3.context_length"] as? Int == 40960)
        #expect((s["model_info"] as? [String: Any])?["general.architecture"] as? String == "qwen3")
        #expect((s["details"] as? [String: Any])?["parameter_size"] as? String == "8.2B")
        #expect(try await send(h.base + "/api/show", body: #"{"name":"tiny:latest"}"#).status == 200)
        let missing = try await send(h.base + "/api/show", body: #"{"model":"nope"}"#)
        #expect(missing.status == 404 && object(Array(missing.body.utf8))["error"] is String)
        let ps = object(Array(try await send(h.base + "/api/ps", method: "GET").body.utf8))
        #expect((ps["models"] as? [[String: Any]])?.map { $0["name"] as? String } == ["qwen3:8b", "tiny"])
        let version = object(Array(try await send(h.base + "/api/version", method: "GET").body.utf8))
        #expect(version["version"] as? String == LocalAPIServer.ollamaVersion)
        let models = object(Array(try await send(h.base + "/v1/models", method: "GET").body.utf8))
        #expect((models["data"] as? [[String: Any]])?.count == 2)
        let one = try await send(h.base + "/v1/models/qwen3:8b", method: "GET")
        #expect(one.status == 200 && object(Array(one.body.utf8))["id"] as? String == "qwen3:8b")
        #expect(try await send(h.base + "/v1/models/none", method: "GET").status == 404)
        let root = try await send(h.base + "/", method: "GET")
        #expect(root.status == 200 && root.body == "Ollama is running")
        let browser = try await send(h.base + "/", method: "GET", headers: [("Accept", "text/html,application/xhtml+xml")])
        #expect(browser.status == 200 && browser.body.hasPrefix("Homebase guest is running"))
        let head = try await send(h.base + "/", method: "HEAD")
        #expect(head.status == 200 && head.body.isEmpty)
        #expect(brain.requests == 0)
    }

    @Test func anthropicKeyHeaderQueryAndErrorShape() async throws {
        let h = try DoorsHarness(brain: FakeBrain(brain: .ownHomebase, events: FakeBrain.hello),
                                 configuration: ServeConfiguration(port: 0, token: "sekret"))
        defer { h.stop() }
        let body = #"{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}"#
        let ok = try await send(h.base + "/v1/messages?beta=true", body: body,
                                headers: [("x-api-key", "sekret"), ("anthropic-version", "2023-06-01")])
        #expect(ok.status == 200)
        #expect(ok.response.header("X-Homebase-Brain") == "homebase")
        let m = object(Array(ok.body.utf8))
        #expect(((m["content"] as? [[String: Any]])?.first?["text"] as? String) == "Hello, Zürich ☀️")
        #expect(m["stop_reason"] as? String == "end_turn")
        let wrong = try await send(h.base + "/v1/messages", body: body, headers: [("x-api-key", "nope")])
        #expect(wrong.status == 401)
        let w = object(Array(wrong.body.utf8))
        #expect(w["type"] as? String == "error" && (w["error"] as? [String: Any])?["type"] as? String == "authentication_error")
        let bad = try await send(h.base + "/v1/messages", body: #"{"model":"m","messages":[]}"#, headers: [("x-api-key", "sekret")])
        #expect(bad.status == 400)
        #expect((object(Array(bad.body.utf8))["error"] as? [String: Any])?["type"] as? String == "invalid_request_error")
        let count = try await send(h.base + "/v1/messages/count_tokens", body: #"{"model":"m","messages":[{"role":"user","content":"hello there"}]}"#,
                                   headers: [("authorization", "Bearer sekret")])
        #expect(count.status == 200 && object(Array(count.body.utf8))["input_tokens"] as? Int == 3 + TokenEstimate.perMessage)
    }

    @Test func previousResponseIDContinuesAStoredConversation() async throws {
        let brain = FakeBrain(events: FakeBrain.hello)
        let h = try DoorsHarness(brain: brain)
        defer { h.stop() }
        let first = object(Array(try await send(h.base + "/v1/responses", body: #"{"model":"m","input":"one","instructions":"I1"}"#).body.utf8))
        let id = try #require(first["id"] as? String)
        let second = try await send(h.base + "/v1/responses",
                                    body: #"{"model":"m","input":"two","instructions":"I2","previous_response_id":"\#(id)","store":false}"#)
        #expect(second.status == 200)
        let asked = brain.requests.last?.messages.map { "\($0.role):\($0.content)" }
        #expect(asked == ["system:I2", "user:one", "assistant:Hello, Zürich ☀️", "user:two"])
        let secondID = try #require(object(Array(second.body.utf8))["id"] as? String)
        let gone = try await send(h.base + "/v1/responses", body: #"{"model":"m","input":"x","previous_response_id":"\#(secondID)"}"#)
        #expect(gone.status == 404)
        #expect((object(Array(gone.body.utf8))["error"] as? [String: Any])?["code"] as? String == "previous_response_not_found")
    }

    @Test func managementCallsNameTheGuestCommand() async throws {
        let h = try DoorsHarness(brain: FakeBrain(events: FakeBrain.hello))
        defer { h.stop() }
        let pull = try await send(h.base + "/api/pull", body: #"{"model":"llama3"}"#)
        #expect(pull.status == 501)
        #expect((object(Array(pull.body.utf8))["error"] as? String)?.contains("guest models pull") == true)
        let delete = try await send(h.base + "/api/delete", method: "DELETE", body: #"{"model":"llama3"}"#)
        #expect(delete.status == 501 && delete.body.contains("guest models delete"))
        #expect(try await send(h.base + "/api/create", body: "{}").status == 501)
    }

    /// A slow first token: keep-alives come first, in each stream's own shape, then the answer.
    @Test(arguments: [
        ("/v1/messages", #"{"model":"m","max_tokens":9,"stream":true,"messages":[{"role":"user","content":"hi"}]}"#, "event: ping", "event: message_stop"),
        ("/v1/chat/completions", #"{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}"#, ": keep-alive", "data: [DONE]"),
        ("/v1/responses", #"{"model":"m","stream":true,"input":"hi"}"#, ": keep-alive", "event: response.completed"),
        ("/api/chat", #"{"model":"m","messages":[{"role":"user","content":"hi"}]}"#, #""content":"""#, #""done":true"#),
        ("/api/generate", #"{"model":"m","prompt":"hi"}"#, #""response":"""#, #""done":true"#),
    ])
    func keepAlivesWhileTheFirstTokenIsSlow(path: String, body: String, keepAlive: String, end: String) async throws {
        let brain = GatedBrain()
        var config = ServeConfiguration(port: 0)
        config.keepAliveInterval = .milliseconds(50)
        let h = try DoorsHarness(brain: brain, configuration: config)
        defer { h.stop() }
        let r = try await HTTPStreamClient().send(HTTPStreamRequest(method: "POST", url: h.base + path,
                                                                    headers: [HTTPHeader("Content-Type", "application/json")],
                                                                    body: Array(body.utf8)))
        #expect(r.status == 200)
        var text = ""
        for try await chunk in r.body {
            text += String(decoding: chunk, as: UTF8.self)
            if text.contains(keepAlive) { brain.open() }
        }
        #expect(brain.requests == 1)
        let before = try #require(text.range(of: keepAlive))
        let answer = try #require(text.range(of: "Hel"))
        #expect(before.lowerBound < answer.lowerBound, "\(text)")
        #expect(text.contains(end), "\(text)")
    }
}
