import Foundation
import Testing

/// The official ollama client's every call named by its brain (through the Homebase, then with
/// the Homebase killed), a Homebase killed while it embeds, and a joined Homebase's embeddings.
extension EmbeddingsEndToEndTests {
    /// Each call of the `ollama` library (its X-Homebase-Brain header seen by an httpx response
    /// hook), through the Homebase, then with the Homebase killed: chat and generate (with a
    /// suffix, and streamed) come from the Homebase then the on-device model; `tiny-embed`'s
    /// vectors from the Homebase, then a 502 saying the Homebase is not connected (never another
    /// model's vectors); `default`'s from the on-device embedding engine both times; the probes
    /// answer both times and list the embedding model, capabilities `embedding`.
    @Test func theOllamaClientsCallsNameTheirBrainThroughTheHomebaseThenOnDevice() throws {
        let scene = try Scene()
        let lb = scene.lb
        defer { lb.stopAll() }
        func calls() throws -> [String: [String: Any]] {
            let o = try ServeDoorsEndToEndTests.peer("ollama_probe_client.py", [scene.base, "brains", lb.model, "tiny-embed", "120"])
            return o.compactMapValues { $0 as? [String: Any] }
        }
        let before = try calls()
        for name in ["generate_suffix", "generate_stream", "chat", "embed"] {
            #expect(before[name]?["ok"] as? Bool == true && before[name]?["header"] as? String == "homebase",
                    "\(name): \(before[name] ?? [:])\n\(scene.logs)")
        }
        #expect((before["embed"]?["sizes"] as? [Int])?.count == 2, "\(before)")
        #expect(before["embed_default"]?["header"] as? String == "on-device", "\(before["embed_default"] ?? [:])")
        let tags = Processes.httpGet(port: scene.port, path: "/v1/models") ?? ""
        #expect(tags.contains("\"id\":\"tiny-embed\""), "/v1/models lists the embedding model: \(tags)")

        lb.killHomebase()
        let after = try calls()
        for name in ["generate_suffix", "generate_stream", "chat"] {
            #expect(after[name]?["ok"] as? Bool == true && after[name]?["header"] as? String == "on-device",
                    "\(name): \(after[name] ?? [:])\n\(scene.logs)")
        }
        let embed = after["embed"] ?? [:]
        #expect(embed["ok"] as? Bool == false && embed["status"] as? Int == 502 && embed["sizes"] == nil, "\(embed)")
        #expect((embed["message"] as? String).map { $0.contains("tiny-embed") && $0.contains("not connected") } == true, "\(embed)")
        #expect(after["embed_default"]?["header"] as? String == "on-device", "\(after["embed_default"] ?? [:])")

        for calls in [before, after] {
            #expect(calls["version"]?["version"] as? String == "0.14.0", "\(calls)")
            #expect((calls["list"]?["names"] as? [String]).map { $0.contains("tiny-embed") && $0.contains(lb.model) } == true, "\(calls)")
            #expect((calls["ps"]?["names"] as? [String])?.contains("tiny-embed") == true, "\(calls)")
            let show = calls["show_embed"] ?? [:]
            #expect((show["capabilities"] as? [String])?.contains("embedding") == true && show["field"] as? String == "homebase", "\(show)")
            let chat = calls["show"] ?? [:]
            #expect((chat["capabilities"] as? [String]).map { $0.contains("completion") && !$0.contains("embedding") } == true, "\(chat)")
        }
    }

    /// The Homebase is killed while its embedding engine (behind a delay peer) holds the request;
    /// serve waits up to 120 s (`--embedding-timeout`) but the relay's peer-gone ends the wait:
    /// the client gets the 502 that says the Homebase left, not the timeout's words (had the
    /// peer-gone been missed, this would wait out the 120 s and say so).
    @Test func theHomebaseKilledWhileEmbeddingEndsTheWaitWithItsLeaving() throws {
        let scene = try Scene(slow: true, embeddingTimeout: 120)
        let lb = scene.lb
        defer { lb.stopAll() }
        let body = #"{"model":"tiny-embed","input":["one","two"]}"#
        let client = try lb.procs.start("/usr/bin/curl", ["-s", "-w", "\nHTTP %{http_code}\n", "-H", "Content-Type: application/json",
                                                          "-d", body, scene.base + "/v1/embeddings"], log: "embed-client.log")
        let slowPort = try #require(Int(scene.embedURL.split(separator: ":").last ?? ""))
        try lb.procs.waitUntil(60, "the embed-request held at the Homebase's engine") {
            let held = Processes.httpGet(port: slowPort, path: "/held").flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) }
            return ((held as? [String: Any])?["held"] as? Int ?? 0) >= 1
        }
        lb.killHomebase()
        try lb.procs.waitUntil(600, "the embeddings client's answer") { !client.isRunning }
        let answer = lb.procs.read("embed-client.log")
        #expect(answer.contains("HTTP 502"), "\(answer)\n\(scene.logs)")
        #expect(answer.contains("tiny-embed") && answer.contains("left the relay") && !answer.contains("within"), "\(answer)")
        #expect(!answer.contains("\"embedding\""), "no vectors: \(answer)")
    }
}
