import Foundation
import Testing

/// A friend's shared Homebase making embeddings (#17 item 3, the joined route), real processes:
/// a relay, the friend's Homebase with an embedding llama-server (`tiny-embed`, `--embeddings
/// --pooling mean`) shared with `homebase share --models tiny-embed`, and on this account's
/// laptop `guest join` then `guest serve` asked by the official openai and ollama clients.
@Suite(.serialized) struct JoinedEmbeddingsEndToEndTests {
    @Test func aJoinedHomebasesEmbeddingModelAnswersTheFriendsServe() throws {
        let w = try SharingWorld(engine: false)
        defer { w.procs.stopAll() }
        let embedPort = try Processes.freePort()
        let embedURL = "http://127.0.0.1:\(embedPort)"
        try w.procs.start(w.bin.engine, ["--model", w.bin.model, "--host", "127.0.0.1", "--port", "\(embedPort)",
                                         "--alias", "tiny-embed", "--embeddings", "--pooling", "mean"], log: "embed-engine.log")
        _ = try w.startHost("friend-workstation", runtime: embedURL)
        let joined = try w.guest("laptop", ["join", try w.share(["--models", "tiny-embed"]), "--as", "alice", "--wait", "30s"] + w.linkFlags)
        #expect(joined.status == 0 && joined.out.contains("joined: models tiny-embed"), "\(joined.out) \(joined.err)")

        let port = try Processes.freePort()
        try w.procs.start(w.bin.path("guest"), ["serve", "--listen", "127.0.0.1:\(port)", "--embedding-timeout", "20s"] + w.chatFlags
                            + ["--data-dir", w.procs.work + "/laptop", "--llama-server", w.bin.engine, "--model-path", w.bin.model],
                          log: "serve.log")
        try w.procs.waitUntil(60, "guest serve") { Processes.canConnect(port) }
        let base = "http://127.0.0.1:\(port)"
        let logs = { "serve: \(w.procs.read("serve.log").suffix(2000))\nhomebase: \(w.procs.read("homebase.log").suffix(2000))" }
        // The model's embedding bit reaches the laptop with the friend's next advert (every 2 s here).
        var got: [String: Any] = [:]
        try w.procs.waitUntil(60, "the joined Homebase's embeddings through serve") {
            got = try EmbeddingsEndToEndTests.peer([base, "tiny-embed", embedURL, "120"])
            return (got["openai"] as? [String: Any])?["header"] as? String == "joined-homebase"
        }
        let openai = got["openai"] as? [String: Any] ?? [:], ollama = got["ollama"] as? [String: Any] ?? [:]
        let engineSizes = got["engine_sizes"] as? [Int] ?? []
        #expect(engineSizes.count == 2 && engineSizes[0] > 0, "\(got)")
        #expect(openai["sizes"] as? [Int] == engineSizes && openai["model"] as? String == "tiny-embed", "\(got)")
        #expect((openai["max_diff"] as? Double).map { $0 < 1e-5 } == true, "not the engine's vectors: \(got)")
        #expect(ollama["header"] as? String == "joined-homebase", "\(got)\n\(logs())")
        #expect((ollama["max_diff"] as? Double).map { $0 < 1e-5 } == true, "not the engine's vectors: \(got)")
        let show = try ServeDoorsEndToEndTests.peer("ollama_probe_client.py", [base, "probes", "tiny-embed", "30"])
        #expect((show["capabilities"] as? [String])?.contains("embedding") == true, "\(show)")
    }
}
