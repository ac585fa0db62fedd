import Foundation
import Inference
import Testing
@testable import LocalAPI

/// `guest serve` driven by the official `ollama` Python library, as a real client.
@Suite struct OllamaClientTests {
    /// The fake brain's hello through the client in `mode` (whole, stream): the whole text,
    /// done, the brain's completion count; what the client printed.
    func hello(_ mode: String) async throws -> [String: Any] {
        let h = try ServeHarness(brain: FakeBrain(events: FakeBrain.hello))
        defer { h.stop() }
        let o = try await runClient("ollama_client.py", [h.base, "none", mode])
        #expect(o["content"] as? String == "Hello, Zürich ☀️")
        #expect(o["done"] as? Bool == true)
        #expect(o["eval_count"] as? Int == 3)
        return o
    }

    @Test func wholeAnswer() async throws {
        let o = try await hello("whole")
        #expect(o["done_reason"] as? String == "stop")
        #expect(o["prompt_eval_count"] as? Int == 7)
    }

    @Test func streamedAnswer() async throws {
        let o = try await hello("stream")
        #expect(o["parts"] as? Int == 4)
    }

    @Test func streamedToolCalls() async throws {
        let call = ToolCall(id: "call_1", name: "get_weather", argumentsJSON: #"{"city":"Zürich"}"#)
        let h = try ServeHarness(brain: FakeBrain(events: [.toolCall(call), .done(finishReason: "tool_calls", usage: nil)]))
        defer { h.stop() }
        let o = try await runClient("ollama_client.py", [h.base, "none", "tools"])
        let calls = try #require(o["tool_calls"] as? [[String: Any]])
        #expect(calls.count == 1)
        #expect(calls.first?["name"] as? String == "get_weather")
        #expect(calls.first?["arguments"] as? [String: String] == ["city": "Zürich"])
        #expect(o["done_reason"] as? String == "stop")
    }

    @Test func tagsList() async throws {
        let h = try ServeHarness(brain: FakeBrain(events: FakeBrain.hello))
        defer { h.stop() }
        let o = try await runClient("ollama_client.py", [h.base, "none", "list"])
        #expect(o["models"] as? [String] == ["fake-brain", "fake-brain:tools"])
    }

    @Test func failureMidStreamRaisesInTheClient() async throws {
        let h = try ServeHarness(brain: FakeBrain(events: [.text("partial")], failure: .inBand("overloaded")))
        defer { h.stop() }
        let o = try await runClient("ollama_client.py", [h.base, "none", "failing"])
        #expect(o["raised"] as? String == "ResponseError")
        #expect((o["message"] as? String)?.contains("overloaded") == true)
    }

    @Test func homebaseFieldAndHeaderOnTheRawWire() async throws {
        let h = try ServeHarness(brain: FakeBrain(brain: .joinedHomebase, events: FakeBrain.hello))
        defer { h.stop() }
        let streamed = try await fetch(h.base + "/api/chat", method: "POST",
                                       body: #"{"model":"m","messages":[{"role":"user","content":"hi"}]}"#)
        #expect(streamed.headers.header("Content-Type") == "application/x-ndjson")
        #expect(streamed.headers.header("X-Homebase-Brain") == "joined-homebase")
        let lines = streamed.body.split(separator: "\n")
        #expect(lines.count == 4)
        let last = try JSONSerialization.jsonObject(with: Data(lines.last!.utf8)) as! [String: Any]
        #expect(last["done"] as? Bool == true)
        #expect(last["homebase"] as? [String: String] == ["brain": "joined-homebase", "route": "test"])
        let first = try JSONSerialization.jsonObject(with: Data(lines.first!.utf8)) as! [String: Any]
        #expect(first["homebase"] == nil)
        let whole = try await fetch(h.base + "/api/chat", method: "POST",
                                    body: #"{"model":"m","stream":false,"messages":[{"role":"user","content":"hi"}]}"#)
        let o = try JSONSerialization.jsonObject(with: Data(whole.body.utf8)) as! [String: Any]
        #expect((o["message"] as? [String: Any])?["content"] as? String == "Hello, Zürich ☀️")
        #expect((o["homebase"] as? [String: String])?["brain"] == "joined-homebase")
    }
}
