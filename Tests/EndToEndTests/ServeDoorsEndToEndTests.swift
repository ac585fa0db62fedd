import Foundation
import Testing

/// `guest serve`'s doors of #17 with the official clients against a real `guest serve`: on the
/// on-device engine alone, and routed to a real Homebase on llama-server that is then killed.
@Suite(.serialized) struct ServeDoorsEndToEndTests {
    static func peer(_ script: String, _ args: [String]) throws -> [String: Any] {
        let line = try runJSONPeer(testsFile("LocalAPITests/peers/\(script)"), args)
        return (try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]) ?? [:]
    }

    /// The base URL of the laptop's running serve, from its serve.json.
    static func serveBase(_ guest: Guest) throws -> String {
        let file = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: guest.directory + "/serve.json"))) as? [String: Any]
        let port = try #require(file?["port"] as? Int)
        return "http://127.0.0.1:\(port)"
    }

    /// No relay, no Homebase: the on-device tiny model answers every client.
    @Test func officialClientsOnDevice() throws {
        let serve = try OnDeviceServe(name: "laptop")
        defer { serve.stop() }
        let base = serve.base, procs = serve.procs
        let log = { procs.read("serve.log") }

        let whole = try Self.peer("anthropic_client.py", [base, "k", "whole", "default", "120"])
        #expect(whole["brain_header"] as? String == "on-device", "\(whole) \(log())")
        #expect(["end_turn", "max_tokens"].contains(whole["stop_reason"] as? String ?? ""), "\(whole)")
        let streamed = try Self.peer("anthropic_client.py", [base, "k", "stream", "default", "120"])
        #expect(["end_turn", "max_tokens"].contains(streamed["stop_reason"] as? String ?? ""), "\(streamed)")
        #expect((streamed["usage"] as? [Int])?.last ?? 0 > 0, "\(streamed)")
        let count = try Self.peer("anthropic_client.py", [base, "k", "count", "default", "120"])
        #expect((count["input_tokens"] as? Int ?? 0) > 0, "\(count)")

        let responses = try Self.peer("responses_client.py", [base + "/v1", "k", "whole", "default", "120"])
        #expect(responses["brain_header"] as? String == "on-device", "\(responses)")
        #expect(["completed", "incomplete"].contains(responses["status"] as? String ?? ""), "\(responses)")
        #expect(responses["second_previous"] as? Bool == true, "\(responses)")
        let events = try Self.peer("responses_client.py", [base + "/v1", "k", "stream", "default", "120"])
        #expect((events["types"] as? [String])?.last == "response.completed", "\(events)")
        let completion = try Self.peer("responses_client.py", [base + "/v1", "k", "completion", "default", "120"])
        #expect(completion["object"] as? String == "text_completion", "\(completion)")
        let retrieved = try Self.peer("responses_client.py", [base + "/v1", "k", "retrieve", "default", "120"])
        #expect(retrieved["id"] as? String == "default", "\(retrieved)")
        Self.expectStored(try Self.peer("responses_client.py", [base + "/v1", "k", "stored", "default", "120"]), brain: "on-device")

        let generate = try Self.peer("ollama_probe_client.py", [base, "generate", "default", "120"])
        #expect(generate["last_done"] as? Bool == true, "\(generate)")
        #expect(["stop", "length"].contains(generate["done_reason"] as? String ?? ""), "\(generate)")
        let probes = try Self.peer("ollama_probe_client.py", [base, "probes", "default"])
        #expect(probes["version"] as? String == "0.14.0", "\(probes)")
        #expect((probes["running"] as? [String])?.contains("default") == true, "\(probes)")
        #expect((probes["capabilities"] as? [String])?.contains("tools") == true, "the on-device model answers tools: \(probes)")
        #expect((probes["capabilities"] as? [String])?.contains("embedding") == true, "and makes embeddings: \(probes)")

        // Embeddings: a second llama-server (--embeddings) on the same tiny model answers.
        let vectors = try Self.peer("responses_client.py", [base + "/v1", "k", "embeddings", "default", "120"])
        let sizes = vectors["sizes"] as? [Int] ?? []
        #expect(sizes.count == 2 && sizes[0] > 0 && sizes[0] == sizes[1] && vectors["base64_size"] as? Int == sizes[0],
                "\(vectors) \(procs.read("serve.log"))")
        let embed = try Self.peer("ollama_probe_client.py", [base, "embed", "default", "120"])
        #expect(embed["sizes"] as? [Int] == sizes && embed["same"] as? Bool == true, "\(embed)")
        let other = try Self.peer("responses_client.py", [base + "/v1", "k", "embeddings", "some-other-model", "120"])
        #expect(other["status"] as? Int == 404 && (other["message"] as? String)?.contains("no embedding model some-other-model") == true, "\(other)")
    }

    /// Routed to the own Homebase (`X-Homebase-Brain: homebase`); with the Homebase killed, the
    /// probes still answer from the last advert (within a 5 s client timeout), and the next
    /// answer comes from the on-device model.
    @Test func probesOutliveTheHomebase() throws {
        let (lb, guest, _) = try ServeLinkEndToEndTests.laptopWithServe()
        defer { lb.stopAll() }
        let base = try Self.serveBase(guest)
        let before = try Self.peer("anthropic_client.py", [base, "k", "whole", lb.model, "120"])
        #expect(before["brain_header"] as? String == "homebase", "\(before) \(lb.procs.read("serve.log"))")
        let vectors = try Self.peer("responses_client.py", [base + "/v1", "k", "embeddings", lb.model, "120"])
        // The chat engine makes no embeddings (no --embeddings): its model is no embedding model
        // (EmbeddingsEndToEndTests has the Homebase's embedding engine answer).
        #expect(vectors["status"] as? Int == 404, "\(vectors)")
        #expect((vectors["message"] as? String)?.contains("no embedding model \(lb.model)") == true, "\(vectors)")

        lb.killHomebase()
        let probes = try Self.peer("ollama_probe_client.py", [base, "probes", lb.model, "5"])
        #expect(probes["version"] as? String == "0.14.0", "\(probes)")
        #expect((probes["running"] as? [String])?.contains(lb.model) == true, "\(probes)")
        #expect((probes["capabilities"] as? [String])?.contains("completion") == true, "\(probes)")
        #expect((probes["context_length"] as? Int ?? 0) > 0, "the advert's context length: \(probes)")
        let models = try Self.peer("responses_client.py", [base + "/v1", "k", "retrieve", "default", "120"])
        #expect(models["id"] as? String == "default", "\(models)")
        let after = try Self.peer("anthropic_client.py", [base, "k", "whole", lb.model, "120"])
        #expect(after["brain_header"] as? String == "on-device", "\(after) \(lb.procs.read("serve.log"))")
    }

    /// Every door's official client routed to the own Homebase (`X-Homebase-Brain: homebase`),
    /// then, with the Homebase killed, answered by the on-device model: Anthropic Messages whole
    /// and streamed, OpenAI Responses whole (with previous_response_id) and streamed, and the
    /// legacy completions.
    @Test func officialClientsThroughTheHomebaseThenOnDevice() throws {
        let (lb, guest, _) = try ServeLinkEndToEndTests.laptopWithServe()
        defer { lb.stopAll() }
        let base = try Self.serveBase(guest)
        let doors: [(String, [String])] = [
            ("anthropic_client.py", [base, "k", "whole", lb.model, "120"]),
            ("anthropic_client.py", [base, "k", "stream", lb.model, "120"]),
            ("responses_client.py", [base + "/v1", "k", "whole", lb.model, "120"]),
            ("responses_client.py", [base + "/v1", "k", "stream", lb.model, "120"]),
            ("responses_client.py", [base + "/v1", "k", "completion", lb.model, "120"]),
            ("responses_client.py", [base + "/v1", "k", "stored", lb.model, "120"]),
        ]
        for expected in ["homebase", "on-device"] {
            if expected == "on-device" { lb.killHomebase() }
            for (script, args) in doors {
                let o = try Self.peer(script, args)
                #expect(o["raised"] == nil, "\(script) \(args[2]): \(o) \(lb.procs.read("serve.log").suffix(1500))")
                #expect(o["brain_header"] as? String == expected, "\(script) \(args[2]) expected \(expected): \(o)")
                if args[2] == "stored" { Self.expectStored(o, brain: expected) }
            }
        }
    }

    /// The `stored` scenario of responses_client.py: `responses.retrieve(id)` gives the response
    /// answered (its text and brain), `input_items.list` its input, and after `responses.delete`,
    /// or for a `store=False` response, retrieve is 404 in OpenAI's error shape.
    static func expectStored(_ o: [String: Any], brain: String) {
        #expect(o["retrieved_id"] as? String == o["id"] as? String && o["id"] != nil, "\(o)")
        #expect(o["retrieved_text"] as? String == o["text"] as? String, "\(o)")
        #expect(["completed", "incomplete"].contains(o["retrieved_status"] as? String ?? ""), "\(o)")
        #expect(o["retrieved_brain"] as? String == brain, "\(o)")
        let items = o["items"] as? [[String: Any]] ?? []
        #expect(items.count == 1 && items.first?["role"] as? String == "user" && items.first?["text"] as? String == "Say hello", "\(o)")
        for key in ["after_delete", "unstored"] {
            let e = o[key] as? [String: Any] ?? [:]
            #expect(e["status"] as? Int == 404 && (e["message"] as? String)?.contains("not found") == true, "\(key): \(o)")
            #expect(e["type"] as? String == "invalid_request_error", "\(key): \(o)")
        }
    }

    /// The `llm` application with its `llm-ollama` plugin (PyPI, as a user installs them):
    /// answered by the Homebase's engine (its done count rises), then, with the Homebase killed,
    /// by the on-device model (the only brain left: no cloud key here; not the floor's notice).
    @Test func llmThroughTheHomebaseThenOnDevice() throws {
        let (lb, guest, _) = try ServeLinkEndToEndTests.laptopWithServe()
        defer { lb.stopAll() }
        let base = try Self.serveBase(guest)
        let status = lb.procs.work + "/host/status.json"
        let before = AiderEndToEndTests.done(status)
        let first = try Self.peer("llm_app.py", [base, "ollama/\(lb.model)"])
        let logs = { "\(lb.procs.read("serve.log").suffix(2000))" }
        #expect(first["models_status"] as? Int == 0 && first["answer_status"] as? Int == 0, "\(first) \(logs())")
        #expect((first["models"] as? [String])?.contains("ollama/\(lb.model)") == true, "\(first)")
        try lb.procs.waitUntil(10, "the Homebase's done count to rise") { AiderEndToEndTests.done(status) > before }

        lb.killHomebase()
        let after = try Self.peer("llm_app.py", [base, "ollama/\(lb.model)"])
        #expect(after["answer_status"] as? Int == 0, "\(after) \(logs())")
        let answer = after["answer"] as? String ?? ""
        #expect(!answer.isEmpty && !answer.contains("No brain was reachable"), "\(after)")
    }
}
