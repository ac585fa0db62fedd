import Foundation
import Testing

/// #23: logprobs come back through the relay. Real processes: the relay, the own Homebase on the
/// real llama-server (tiny model), `guest serve`; the official `openai` and `ollama` clients ask
/// `logprobs=True, top_logprobs=2` and get every token's logprob with two alternatives, from the
/// Homebase (brain `homebase`), streamed and not.
@Suite(.serialized) struct RelayedLogprobsEndToEndTests {
    @Test(arguments: ["openai-whole", "openai-stream", "ollama-whole", "ollama-stream"])
    func logprobsComeBackThroughTheRelay(_ scenario: String) throws {
        let (lb, guest, _) = try ServeLinkEndToEndTests.laptopWithServe(engine: .llama)
        defer { lb.stopAll() }
        let base = try ServeDoorsEndToEndTests.serveBase(guest)
        let (o, line) = try jsonPeer("EndToEndTests/peers/serve_logprobs_client.py", [base, scenario])
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
        let serve = try OnDeviceServe(name: "logprobs")
        defer { serve.stop() }
        let (o, line) = try jsonPeer("EndToEndTests/peers/serve_logprobs_client.py", [serve.base, scenario])
        let why = "\(line)\nserve: \(serve.procs.read("serve.log").suffix(1500))"
        #expect(o["raised"] == nil && o["brain"] as? String == "on-device", "\(why)")
        let tokens = o["tokens"] as? [[String: Any]] ?? []
        #expect(!tokens.isEmpty && tokens.allSatisfy { $0["top"] as? Int == 2 }, "\(why)")
    }
}
