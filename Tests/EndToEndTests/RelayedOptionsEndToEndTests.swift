import Foundation
import Testing

/// #23: every option a client sends reaches the Homebase's engine with its value, through the
/// relay, and nothing the client left unset is invented. Real processes: the relay, the own
/// Homebase, `guest serve`, the official `openai` and `ollama` clients; the engine is llama-server
/// behind the CAPTURE PEER (peers/vision_capture_engine.py `--record`), which keeps each chat
/// request's body and answers it itself.
@Suite(.serialized) struct RelayedOptionsEndToEndTests {
    /// What every request to the engine carries whatever the client sent: the Homebase streams.
    static let always: Set<String> = ["model", "messages", "stream", "stream_options"]

    @Test func everyOptionArrivesAtTheHomebasesEngineAndNothingIsInvented() throws {
        let (lb, guest, _) = try ServeLinkEndToEndTests.laptopWithServe(engine: .optionsCapture)
        defer { lb.stopAll() }
        let base = try ServeDoorsEndToEndTests.serveBase(guest)
        let (o, line) = try jsonPeer("EndToEndTests/peers/serve_capture_options_client.py", [base])
        let recorded = try lb.procs.capture("/usr/bin/curl", ["-sf", lb.engineURL + "/recorded"]).out
        let why = "\(line)\n\(recorded.prefix(4000))\nguest: \(guest.log.suffix(1500))\ncapture: \(lb.procs.read("capture.log").suffix(800))"
        #expect(o["raised"] == nil, "\(why)")
        #expect(o["brains"] as? [String] == ["homebase", "homebase", "homebase"], "\(why)")
        let bodies = try #require(try JSONSerialization.jsonObject(with: Data(recorded.utf8)) as? [[String: Any]], "\(why)")
        try #require(bodies.count == 4, "\(why)")

        // 1. openai, streamed, everything.
        let a = bodies[0]
        #expect(Set(a.keys) == Self.always.union(["stop", "top_p", "seed", "presence_penalty", "frequency_penalty",
                                                  "response_format", "logprobs", "top_logprobs", "max_tokens", "temperature",
                                                  "tools", "tool_choice", "top_k", "min_p", "repeat_penalty", "mirostat"]), "\(why)")
        #expect(a["stop"] as? [String] == ["END", "STOP"], "\(why)")
        #expect(a["top_p"] as? Double == 0.875 && a["seed"] as? Int == 4242, "\(why)")
        #expect(a["presence_penalty"] as? Double == 0.5 && a["frequency_penalty"] as? Double == 0.25, "\(why)")
        #expect((a["response_format"] as? [String: Any])?["type"] as? String == "json_object", "\(why)")
        #expect(a["logprobs"] as? Bool == true && a["top_logprobs"] as? Int == 3, "\(why)")
        #expect(a["max_tokens"] as? Int == 17 && a["temperature"] as? Double == 0.375, "\(why)")
        #expect(a["tool_choice"] as? String == "required", "\(why)")
        let tool = ((a["tools"] as? [[String: Any]])?.first?["function"] as? [String: Any])
        #expect(tool?["name"] as? String == "get_time" && tool?["description"] as? String == "the current time", "\(why)")
        #expect(a["top_k"] as? Int == 7 && a["min_p"] as? Double == 0.0625 && a["repeat_penalty"] as? Double == 1.125, "\(why)")
        #expect(a["mirostat"] as? Int == 2, "an extra key is carried as sent: \(why)")

        // 2. openai, json_schema and max_tokens only: no temperature, nothing else invented.
        let b = bodies[1]
        #expect(Set(b.keys) == Self.always.union(["response_format", "max_tokens"]), "\(why)")
        let rf = b["response_format"] as? [String: Any], js = rf?["json_schema"] as? [String: Any]
        #expect(rf?["type"] as? String == "json_schema" && js?["name"] as? String == "flag" && js?["strict"] as? Bool == true, "\(why)")
        #expect(((js?["schema"] as? [String: Any])?["required"] as? [String]) == ["ok"], "\(why)")
        #expect(b["max_tokens"] as? Int == 5, "\(why)")

        // 3. ollama: its options under OpenAI's names. num_ctx stops at the Homebase by design: no
        // OpenAI-compatible engine takes a context length per request (OpenAIRequestBody.swift).
        let c = bodies[2]
        #expect(Set(c.keys) == Self.always.union(["max_tokens", "temperature", "top_p", "top_k", "min_p", "seed", "stop",
                                                  "repeat_penalty", "presence_penalty", "frequency_penalty", "mirostat",
                                                  "response_format", "logprobs", "top_logprobs", "tools"]), "\(why)")
        #expect(c["max_tokens"] as? Int == 11 && c["temperature"] as? Double == 0.625 && c["top_p"] as? Double == 0.75, "\(why)")
        #expect(c["top_k"] as? Int == 9 && c["min_p"] as? Double == 0.125 && c["seed"] as? Int == 99, "\(why)")
        #expect(c["stop"] as? [String] == ["HALT"] && c["repeat_penalty"] as? Double == 1.25, "\(why)")
        #expect(c["presence_penalty"] as? Double == 0.75 && c["frequency_penalty"] as? Double == 0.875, "\(why)")
        #expect(c["mirostat"] as? Int == 1, "\(why)")
        #expect((c["response_format"] as? [String: Any])?["type"] as? String == "json_object", "\(why)")
        #expect(c["logprobs"] as? Bool == true && c["top_logprobs"] as? Int == 4, "\(why)")
        #expect(((c["tools"] as? [[String: Any]])?.first?["function"] as? [String: Any])?["name"] as? String == "get_time", "\(why)")
        #expect(c["num_ctx"] == nil && c["n_ctx"] == nil, "\(why)")
        // ...and not silently: the Homebase names it (ignored-options) and the guest logs it.
        let note = "the Homebase's engine takes no context length per request (num_ctx)"
        #expect(guest.log.contains(note) || lb.procs.read("serve.log").contains(note), "\(why)\nserve: \(lb.procs.read("serve.log").suffix(1500))")

        // 4. the plain ollama request: only what it set.
        #expect(Set(bodies[3].keys) == Self.always.union(["max_tokens"]), "\(why)")
    }
}
