import Foundation
import Testing

/// #23: logprobs come back through the relay. Real processes: the relay, the own Homebase on the
/// real llama-server (tiny model), `guest serve`; the official `openai` and `ollama` clients ask
/// `logprobs=True, top_logprobs=2` and get every token's logprob with two alternatives, from the
/// Homebase (brain `homebase`), streamed and not.
@Suite(.serialized) struct RelayedLogprobsEndToEndTests {
    @Test(arguments: ["openai-whole", "openai-stream", "ollama-whole", "ollama-stream"])
    func logprobsComeBackThroughTheRelay(_ scenario: String) throws {
        let lb = try Loopback(engine: .llama)
        defer { lb.stopAll() }
        let guest = try lb.addGuest("laptop")
        try lb.startHomebase()
        try guest.waitForAdvert()
        _ = try ServeLinkEndToEndTests.startServe(lb, guest)
        let base = try ServeDoorsEndToEndTests.serveBase(guest)
        let line = try runJSONPeer(testsFile("EndToEndTests/peers/serve_logprobs_client.py"), [base, scenario])
        let o = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let why = "\(line)\nguest: \(guest.log.suffix(1500))\nserve: \(lb.procs.read("serve.log").suffix(1500))"
        #expect(o["raised"] == nil, "\(why)")
        #expect(o["brain"] as? String == "homebase", "\(why)")
        let tokens = o["tokens"] as? [[String: Any]] ?? []
        #expect(!tokens.isEmpty, "no logprobs came back: \(why)")
        #expect(tokens.allSatisfy { ($0["logprob"] as? Double ?? 1) <= 0 && $0["top"] as? Int == 2 }, "\(why)")
        // The tokens spell the answer (the engine's own pieces, in order).
        #expect(tokens.compactMap { $0["token"] as? String }.joined() == o["text"] as? String, "\(why)")
    }

    /// The on-device llama-server goes through the same engine client: its logprobs come back too.
    @Test(arguments: ["openai-stream", "ollama-whole"])
    func logprobsComeBackOnDevice(_ scenario: String) throws {
        let bin = try Binaries.locate(), procs = try Processes()
        defer { procs.stopAll() }
        let port = try Processes.freePort()
        let flags = ["--data-dir", procs.work + "/g", "--llama-server", bin.engine, "--model-path", bin.model]
        #expect(try procs.run(bin.path("guest"), ["init", "--name", "logprobs"] + flags).status == 0)
        try procs.start(bin.path("guest"), ["serve", "--listen", "127.0.0.1:\(port)"] + flags, log: "serve.log")
        try procs.waitUntil(60, "guest serve") { Processes.canConnect(port) }
        let line = try runJSONPeer(testsFile("EndToEndTests/peers/serve_logprobs_client.py"), ["http://127.0.0.1:\(port)", scenario])
        let o = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let why = "\(line)\nserve: \(procs.read("serve.log").suffix(1500))"
        #expect(o["raised"] == nil && o["brain"] as? String == "on-device", "\(why)")
        let tokens = o["tokens"] as? [[String: Any]] ?? []
        #expect(!tokens.isEmpty && tokens.allSatisfy { $0["top"] as? Int == 2 }, "\(why)")
    }
}
