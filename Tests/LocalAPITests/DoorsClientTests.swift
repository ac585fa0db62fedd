import Foundation
import Inference
import Testing
@testable import LocalAPI

/// The official `anthropic`, `openai` and `ollama` libraries against the endpoints of #17 on a
/// real loopback server (the brain is the labelled fake; EndToEndTests run them against a real
/// `guest serve` and engine).
@Suite struct DoorsClientTests {
    static let call = ToolCall(id: "toolu_1", name: "get_weather", argumentsJSON: #"{"city":"Zürich"}"#)

    @Test func anthropicWholeAndStreamed() async throws {
        let h = try DoorsHarness(brain: FakeBrain(brain: .joinedHomebase, events: FakeBrain.hello))
        defer { h.stop() }
        let whole = try await runClient("anthropic_client.py", [h.base, "any-key", "whole"])
        #expect(whole["text"] as? String == "Hello, Zürich ☀️", "\(whole)")
        #expect(whole["stop_reason"] as? String == "end_turn" && whole["role"] as? String == "assistant")
        #expect(whole["usage"] as? [Int] == [7, 3])
        #expect(whole["brain_header"] as? String == "joined-homebase")
        #expect((whole["homebase"] as? [String: String])?["brain"] == "joined-homebase")
        let streamed = try await runClient("anthropic_client.py", [h.base, "any-key", "stream"])
        #expect(streamed["text"] as? String == "Hello, Zürich ☀️", "\(streamed)")
        #expect(streamed["deltas"] as? Int == 3)
        #expect(streamed["stop_reason"] as? String == "end_turn" && streamed["usage"] as? [Int] == [7, 3])
    }

    @Test func anthropicToolUseImageCountAndFailure() async throws {
        let tools = try DoorsHarness(brain: FakeBrain(events: [.toolCallDelta(ToolCallDelta(index: 0, id: "toolu_1", name: "get_weather", arguments: "{\"city\"")),
                                                               .toolCallDelta(ToolCallDelta(index: 0, arguments: ":\"Zürich\"}")),
                                                               .toolCall(Self.call), .done(finishReason: "tool_calls", usage: nil)]))
        defer { tools.stop() }
        let t = try await runClient("anthropic_client.py", [tools.base, "k", "tools"])
        let uses = try #require(t["tool_uses"] as? [[String: Any]], "\(t)")
        #expect(uses.count == 1 && uses.first?["name"] as? String == "get_weather" && uses.first?["id"] as? String == "toolu_1")
        #expect(uses.first?["input"] as? [String: String] == ["city": "Zürich"])
        #expect(t["stop_reason"] as? String == "tool_use")

        let brain = FakeBrain(events: FakeBrain.hello)
        let h = try DoorsHarness(brain: brain)
        defer { h.stop() }
        let image = try await runClient("anthropic_client.py", [h.base, "k", "image"])
        #expect(image["text"] as? String == "Hello, Zürich ☀️", "\(image)")
        let asked = try #require(brain.requests.last)
        #expect(asked.messages.first?.role == .system && asked.messages.first?.content == "Describe briefly.")
        #expect(asked.messages.last?.images.first?.mediaType == "image/png")
        #expect(asked.messages.last?.images.first?.bytes == Array("\u{89}PNG\r\n\u{1A}\nfake".unicodeScalars.map { UInt8($0.value) }))
        let count = try await runClient("anthropic_client.py", [h.base, "k", "count"])
        #expect((count["input_tokens"] as? Int ?? 0) > 0, "\(count)")

        let failing = try DoorsHarness(brain: FakeBrain(events: [.text("partial")], failure: .inBand("overloaded")))
        defer { failing.stop() }
        let f = try await runClient("anthropic_client.py", [failing.base, "k", "failing"])
        #expect(f["raised"] != nil && !(f["raised"] is NSNull), "\(f)")
        #expect((f["message"] as? String)?.contains("overloaded") == true, "\(f)")
    }

    @Test func openAIResponsesWholeStreamedAndPrevious() async throws {
        let brain = FakeBrain(brain: .ownHomebase, events: FakeBrain.hello)
        let h = try DoorsHarness(brain: brain)
        defer { h.stop() }
        let whole = try await runClient("responses_client.py", [h.base + "/v1", "k", "whole"])
        #expect(whole["text"] as? String == "Hello, Zürich ☀️", "\(whole)")
        #expect(whole["status"] as? String == "completed" && whole["usage"] as? [Int] == [7, 3, 10])
        #expect(whole["brain_header"] as? String == "homebase")
        #expect(whole["second"] as? String == "Hello, Zürich ☀️" && whole["second_previous"] as? Bool == true)
        #expect(brain.requests.last?.messages.map(\.content) == ["Say hello", "Hello, Zürich ☀️", "Again"])
        let streamed = try await runClient("responses_client.py", [h.base + "/v1", "k", "stream"])
        #expect(streamed["text"] as? String == "Hello, Zürich ☀️", "\(streamed)")
        let types = try #require(streamed["types"] as? [String])
        #expect(types.first == "response.created" && types.last == "response.completed")
        #expect(types.contains("response.output_text.done") && types.contains("response.output_item.added"))
        #expect(streamed["usage"] as? [Int] == [7, 3])
    }

    @Test func openAIResponsesToolsCompletionsAndRetrieve() async throws {
        let tools = try DoorsHarness(brain: FakeBrain(events: [.toolCall(Self.call), .done(finishReason: "tool_calls", usage: nil)]))
        defer { tools.stop() }
        let t = try await runClient("responses_client.py", [tools.base + "/v1", "k", "tools"])
        let calls = try #require(t["calls"] as? [[String: Any]], "\(t)")
        #expect(calls.count == 1 && calls.first?["name"] as? String == "get_weather" && calls.first?["call_id"] as? String == "toolu_1")
        #expect(calls.first?["arguments"] as? [String: String] == ["city": "Zürich"])
        #expect((t["types"] as? [String])?.contains("response.function_call_arguments.done") == true)

        let brain = FakeBrain(events: FakeBrain.hello)
        let h = try DoorsHarness(brain: brain, models: ["fake-brain", "other"])
        defer { h.stop() }
        let c = try await runClient("responses_client.py", [h.base + "/v1", "k", "completion"])
        #expect(c["text"] as? String == "Hello, Zürich ☀️" && c["streamed"] as? String == "Hello, Zürich ☀️", "\(c)")
        #expect(c["object"] as? String == "text_completion" && c["finish_reason"] as? String == "stop")
        #expect(brain.requests.last?.continuation == "Once" && brain.requests.last?.maxTokens == 8)
        let r = try await runClient("responses_client.py", [h.base + "/v1", "k", "retrieve"])
        #expect(r["id"] as? String == "fake-brain", "\(r)")
    }

    @Test func ollamaGenerateWithSuffixProbesAndPull() async throws {
        let brain = FakeBrain(events: FakeBrain.hello)
        let h = try DoorsHarness(brain: brain, models: [ListedModel(name: "coder", brain: .ownHomebase,
                                                                     details: ModelDetails(family: "qwen2", contextLength: 32768,
                                                                                           capabilities: ["completion", "tools", "insert"]))])
        defer { h.stop() }
        let g = try await runClient("ollama_probe_client.py", [h.base, "generate", "coder"])
        #expect(g["whole"] as? String == "Hello, Zürich ☀️" && g["streamed"] as? String == "Hello, Zürich ☀️", "\(g)")
        #expect(g["done_reason"] as? String == "stop" && g["last_done"] as? Bool == true && g["eval_count"] as? Int == 3)
        let fim = try #require(brain.requests.first)
        #expect(fim.messages.last?.content == "<prefix>def add(a, b):\n</prefix>\n<suffix>\n    return c</suffix>")
        let p = try await runClient("ollama_probe_client.py", [h.base, "probes", "coder"])
        #expect(p["version"] as? String == LocalAPIServer.ollamaVersion, "\(p)")
        #expect(p["running"] as? [String] == ["coder"])
        #expect(p["capabilities"] as? [String] == ["completion", "tools", "insert"])
        #expect(p["context_length"] as? Int == 32768 && p["family"] as? String == "qwen2")
        let pull = try await runClient("ollama_probe_client.py", [h.base, "pull", "llama3"])
        #expect(pull["status"] as? Int == 501 && (pull["message"] as? String)?.contains("guest models pull") == true, "\(pull)")
    }
}

/// A real application from PyPI: `llm` with the `llm-ollama` plugin lists the models (by
/// /api/tags and each one's /api/show) and answers a prompt through `guest serve`.
@Suite struct LLMApplicationTests {
    @Test func llmOllamaListsEveryModelAndAnswers() async throws {
        let brain = FakeBrain(events: FakeBrain.hello)
        let h = try DoorsHarness(brain: brain, models: [
            ListedModel(name: "fake-brain", details: ModelDetails(capabilities: ["completion"])),
            ListedModel(name: "other:7b", details: ModelDetails(capabilities: ["completion", "tools"])),
        ])
        defer { h.stop() }
        let o = try await runClient("llm_app.py", [h.base, "ollama/fake-brain"])
        #expect(o["models_status"] as? Int == 0 && o["answer_status"] as? Int == 0, "\(o)")
        #expect(Set(o["models"] as? [String] ?? []) == ["ollama/fake-brain", "ollama/other:7b"], "\(o)")
        #expect(o["answer"] as? String == "Hello, Zürich ☀️", "\(o)")
        #expect(brain.requests.last?.messages.last?.content == "Say hello")
    }
}
