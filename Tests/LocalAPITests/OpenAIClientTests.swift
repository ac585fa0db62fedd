import Foundation
import Inference
import Testing
@testable import LocalAPI

/// `guest serve` driven by the official `openai` Python library, as a real client.
@Suite struct OpenAIClientTests {
    @Test func wholeAnswerWithBrainHeaderAndHomebaseField() async throws {
        let brain = FakeBrain(brain: .ownHomebase, events: FakeBrain.hello)
        let h = try ServeHarness(brain: brain)
        defer { h.stop() }
        let o = try await runClient("openai_client.py", [h.base + "/v1", "unused", "whole"])
        #expect(o["content"] as? String == "Hello, Zürich ☀️")
        #expect(o["finish_reason"] as? String == "stop")
        #expect(o["brain_header"] as? String == "homebase")
        #expect(o["object"] as? String == "chat.completion")
        #expect((o["usage"] as? [String: Any])?["total_tokens"] as? Int == 10)
        #expect(o["homebase"] as? [String: String] == ["brain": "homebase", "route": "test"])
        let asked = try #require(brain.requests.first)
        #expect(asked.model == "fake-brain")
        #expect(asked.maxTokens == 16)
        #expect(asked.messages.map(\.role) == [.system, .user])
    }

    @Test func streamedAnswerWithUsageAndHomebaseInTheLastChunk() async throws {
        let h = try ServeHarness(brain: FakeBrain(brain: .openAI, events: FakeBrain.hello))
        defer { h.stop() }
        let o = try await runClient("openai_client.py", [h.base + "/v1", "unused", "stream"])
        #expect(o["content"] as? String == "Hello, Zürich ☀️")
        #expect(o["finish_reason"] as? String == "stop")
        #expect(o["usage"] as? [String: Int] == ["prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10])
        #expect(o["homebase"] as? [String: String] == ["brain": "openai", "route": "test"])
        #expect((o["chunks"] as? Int ?? 0) >= 5)
    }

    @Test func streamedToolCallsReassembleInTheClient() async throws {
        let call = ToolCall(id: "call_1", name: "get_weather", argumentsJSON: #"{"city":"Zürich"}"#)
        let brain = FakeBrain(events: [.toolCall(call), .done(finishReason: "tool_calls", usage: nil)])
        let h = try ServeHarness(brain: brain)
        defer { h.stop() }
        let o = try await runClient("openai_client.py", [h.base + "/v1", "unused", "tools"])
        #expect(o["finish_reason"] as? String == "tool_calls")
        let calls = try #require(o["tool_calls"] as? [[String: String]])
        #expect(calls == [["id": "call_1", "name": "get_weather", "arguments": #"{"city":"Zürich"}"#]])
        #expect(brain.requests.first?.tools.map(\.name) == ["get_weather"])
    }

    @Test func modelsList() async throws {
        let h = try ServeHarness(brain: FakeBrain(events: FakeBrain.hello))
        defer { h.stop() }
        let o = try await runClient("openai_client.py", [h.base + "/v1", "unused", "models"])
                #expect(o["models"] as? [String] == ["fake-brain", "fake-brain:tools"])
    }

    @Test func failureMidStreamRaisesInTheClient() async throws {
        let h = try ServeHarness(brain: FakeBrain(events: [.text("partial")], failure: .interrupted))
        defer { h.stop() }
        let o = try await runClient("openai_client.py", [h.base + "/v1", "unused", "failing"])
        #expect(o["raised"] as? String != nil)
        // The raw stream has the error event and no [DONE].
        let raw = try await fetch(h.base + "/v1/chat/completions", method: "POST",
                                  body: #"{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}"#)
        #expect(raw.status == 200)
        #expect(raw.body.contains(#""error""#))
        #expect(!raw.body.contains("[DONE]"))
    }

    @Test func failureBeforeAnyOutputIsA502() async throws {
        let h = try ServeHarness(brain: FakeBrain(events: [], failure: .unreachable("engine down")))
        defer { h.stop() }
        let o = try await runClient("openai_client.py", [h.base + "/v1", "unused", "whole"])
        #expect(o["raised"] as? String == "InternalServerError")
        #expect(o["status"] as? Int == 502)
        let raw = try await fetch(h.base + "/v1/chat/completions", method: "POST",
                                  body: #"{"model":"m","messages":[{"role":"user","content":"hi"}]}"#)
        #expect(raw.headers.header("X-Homebase-Brain") == "on-device")
        #expect(raw.body.contains("runtime unreachable: engine down"))
    }

    @Test func malformedRequestsAndUnknownPaths() async throws {
        let h = try ServeHarness(brain: FakeBrain(events: FakeBrain.hello))
        defer { h.stop() }
        #expect(try await fetch(h.base + "/v1/chat/completions", method: "POST", body: "{not json").status == 400)
        #expect(try await fetch(h.base + "/v1/chat/completions", method: "POST", body: #"{"model":"m","messages":[]}"#).status == 400)
        #expect(try await fetch(h.base + "/v1/chat/completions").status == 405)
        #expect(try await fetch(h.base + "/v2/nothing").status == 404)
    }
}
