import Foundation
import Testing

/// Embeddings through the relay (#17 item 3), all real processes: a relay, a Homebase with two
/// runtimes (the chat llama-server `tiny`, and a second llama-server on the same tiny model
/// started `--embeddings --pooling mean` as `tiny-embed`), a guest's `guest serve`, and the
/// official `openai` and `ollama` clients.
@Suite(.serialized) struct EmbeddingsEndToEndTests {
    static func peer(_ args: [String]) throws -> [String: Any] {
        let line = try runJSONPeer(testsFile("LocalAPITests/peers/embed_clients.py"), args)
        return (try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]) ?? [:]
    }

    /// The Homebase's embedding llama-server answers (X-Homebase-Brain: homebase, vectors equal
    /// to that engine's own for the same texts); once the Homebase is killed, the answer is an
    /// error that says the Homebase failed, never vectors (the guest's on-device model is not
    /// `tiny-embed`, and nothing stands in for it).
    /// A Homebase with the chat engine `tiny` and an embedding llama-server `tiny-embed` (behind
    /// peers/slow_embed_engine.py, a labelled delay peer, when `slow`), and a guest's serve.
    struct Scene {
        let lb: Loopback
        let guest: Guest
        let base: String
        let port: Int
        /// The embedding engine as the Homebase reaches it (the delay peer when slow).
        let embedURL: String
        var logs: String { "serve: \(lb.procs.read("serve.log").suffix(3000))\nhomebase: \(lb.procs.read("homebase.log").suffix(2000))" }

        init(slow: Bool = false, embeddingTimeout: Int = 20) throws {
            lb = try Loopback(engine: .llama)
            let enginePort = try Processes.freePort()
            try lb.procs.start(lb.bin.engine, ["--model", lb.bin.model, "--host", "127.0.0.1", "--port", "\(enginePort)",
                                               "--alias", "tiny-embed", "--embeddings", "--pooling", "mean"], log: "embed-engine.log")
            var port = enginePort
            if slow {
                port = try Processes.freePort()
                try lb.procs.start(Processes.python, [testsFile("EndToEndTests/peers/slow_embed_engine.py"), "--port", "\(port)",
                                                      "--target", "\(enginePort)"], log: "slow-embed.log")
            }
            embedURL = "http://127.0.0.1:\(port)"
            try lb.procs.waitUntil(60, "homebase runtime add of the embedding engine") { [lb, embedURL] in
                ((try? lb.procs.run(lb.bin.path("homebase"), lb.hostArgs + ["runtime", "add", embedURL]))?.status ?? 1) == 0
            }
            guest = try lb.addGuest("laptop")
            try lb.startHomebase()
            try guest.waitForAdvert()
            self.port = try Processes.freePort()
            let waits = Guest.chatWaits.filter { $0.name != "--max-tokens" }.flatMap { [$0.name, $0.value] }
            try lb.procs.start(lb.bin.path("guest"), ["serve", "--listen", "127.0.0.1:\(self.port)", "--embedding-timeout", "\(embeddingTimeout)s"]
                               + waits + guest.globalFlags, log: "serve.log")
            try lb.procs.waitUntil(60, "guest serve and its serve.json") { [guest, port = self.port] in
                Processes.canConnect(port) && FileManager.default.fileExists(atPath: guest.directory + "/serve.json")
            }
            base = "http://127.0.0.1:\(self.port)"
        }
    }

    @Test func theHomebasesEmbeddingEngineAnswersThenAClearError() throws {
        let scene = try Scene()
        let lb = scene.lb, base = scene.base, embedURL = scene.embedURL
        defer { lb.stopAll() }
        let logs = { scene.logs }

        // Answered by the Homebase's second llama-server (tiny-embed, --embeddings --pooling mean).
        let got = try Self.peer([base, "tiny-embed", embedURL, "120"])
        let openai = got["openai"] as? [String: Any] ?? [:], ollama = got["ollama"] as? [String: Any] ?? [:]
        let engineSizes = got["engine_sizes"] as? [Int] ?? []
        #expect(engineSizes.count == 2 && engineSizes[0] > 0, "\(got)")
        #expect(openai["header"] as? String == "homebase", "\(got)\n\(logs())")
        #expect(openai["sizes"] as? [Int] == engineSizes, "\(got)")
        #expect(openai["model"] as? String == "tiny-embed", "\(got)")
        #expect((openai["max_diff"] as? Double).map { $0 < 1e-5 } == true, "not the engine's vectors: \(got)")
        #expect(ollama["header"] as? String == "homebase", "\(got)")
        #expect(ollama["sizes"] as? [Int] == engineSizes, "\(got)")
        #expect((ollama["max_diff"] as? Double).map { $0 < 1e-5 } == true, "not the engine's vectors: \(got)")

        // A model nobody here makes vectors of: 404 naming it and what is available.
        let unknown = try Self.peer([base, "no-such-embedder", embedURL, "120"])
        let unknownOpenAI = unknown["openai"] as? [String: Any] ?? [:]
        #expect(unknownOpenAI["status"] as? Int == 404, "\(unknown)")
        let unknownWords = unknownOpenAI["message"] as? String ?? ""
        #expect(unknownWords.contains("no-such-embedder") && unknownWords.contains("tiny-embed"), "\(unknown)")

        lb.killHomebase()
        let after = try Self.peer([base, "tiny-embed", embedURL, "120"])
        for client in ["openai", "ollama"] {
            let answer = after[client] as? [String: Any] ?? [:]
            #expect(answer["status"] as? Int == 502, "\(client): \(after)\n\(logs())")
            #expect(answer["sizes"] == nil, "\(client) got vectors with the Homebase gone: \(after)")
            let words = answer["message"] as? String ?? ""
            #expect(words.contains("tiny-embed") && words.contains("Homebase") && words.contains("not connected"),
                    "\(client): \(after)")
        }
    }
}
