// Time to first token and tokens/s: a client talking to llama-server directly beside the
// guest's full path (router, relay-routed provider, relay, Homebase, the same llama-server).
import BenchSupport
import Inference

struct LatencyResult {
    var directTTFT = Samples(), relayedTTFT = Samples()
    var directRate = Samples(), relayedRate = Samples()
    /// Per pair: relayed TTFT minus direct TTFT (ms), relayed rate over direct rate.
    var addedTTFT = Samples(), rateRatio = Samples()
    var fellBack = 0
    /// CPU per hop over the counted runs (LatencyCPU.swift), and the completion tokens they streamed.
    var relayedCPU: CPUMeter?, directCPU: CPUMeter?
    var relayedTokens = 0, directTokens = 0
}

enum Latency {
    static let prompt = "Tell me about the mountains near the sea, in a few sentences."

    static func run(_ o: Options, engineURL: String, guest: BenchGuest, hops: HopPids) async throws -> LatencyResult {
        let direct = OpenAIChatClient(.init(baseURL: engineURL))
        let runner = guest.runner()
        var r = LatencyResult()
        let relayedCPU = hops.relayedMeter(), directCPU = hops.directMeter()
        r.relayedCPU = relayedCPU; r.directCPU = directCPU
        // Two warm-up pairs (prompt cache, connections), not counted.
        for i in -2..<o.runs {
            var d: (ttft: Double, rate: Double, tokens: Int)?
            var g: Timed?
            func relayed() async throws {
                if i >= 0 { relayedCPU.start() }
                g = try await guest.ask(runner, request(o.tokens))
                if i >= 0 { relayedCPU.stop(); r.relayedTokens += g?.metadata.completionTokens ?? 0 }
            }
            func straight() async throws {
                if i >= 0 { directCPU.start() }
                d = try await directOnce(direct, o.tokens)
                if i >= 0 { directCPU.stop(); r.directTokens += d?.tokens ?? 0 }
            }
            try await alternating(i, straight, relayed)
            guard i >= 0, let d, let g else { continue }
            guard g.brain == .ownHomebase, let ttft = g.ttftMs, let rate = g.tokensPerSecond else {
                r.fellBack += 1
                continue
            }
            r.directTTFT.add(d.ttft); r.directRate.add(d.rate)
            r.relayedTTFT.add(ttft); r.relayedRate.add(rate)
            r.addedTTFT.add(ttft - d.ttft); r.rateRatio.add(rate / d.rate)
        }
        return r
    }

    /// The guest's request: the router pins the model the Homebase serves (`tiny`); the
    /// temperature travels as its default 0.7, which the direct client sends too.
    static func request(_ tokens: Int) -> ChatRequest {
        ChatRequest(model: "default", messages: [.init(role: .user, content: prompt)], maxTokens: tokens)
    }

    /// One streamed answer straight from llama-server: call to first text, and completion
    /// tokens per second from the first text to the end (the runner's definition).
    static func directOnce(_ client: OpenAIChatClient, _ tokens: Int) async throws -> (ttft: Double, rate: Double, tokens: Int) {
        let a = try await DirectAnswer.stream(client, prompt: prompt, maxTokens: tokens, temperature: 0.7)
        guard let first = a.first, let n = a.usage?.completionTokens, n > 0 else { throw BenchError("the direct answer had no text or no usage") }
        return (ms(first - a.start), Double(n) / (ms(a.end - first) / 1000), n)
    }

    static func print(_ r: LatencyResult, _ o: Options) {
        Swift.print("""
            ### Time to first token and tokens/s

            \(r.directTTFT.count) paired runs after 2 warm-up pairs, alternating which path goes first; \
            same prompt, max_tokens \(o.tokens), temperature 0.7, the same llama-server. Time to first token \
            is measured from the call (the guest's includes the router's decision); tokens/s is completion \
            tokens over first text to end.

            | path | TTFT p50 ms | TTFT p99 ms | tokens/s p50 | tokens/s min |
            |---|---:|---:|---:|---:|
            | client → llama-server (direct) | \(fmt(r.directTTFT.p50, 2)) | \(fmt(r.directTTFT.p99, 2)) | \(fmt(r.directRate.p50, 0)) | \(fmt(r.directRate.min, 0)) |
            | guest → relay → Homebase → llama-server | \(fmt(r.relayedTTFT.p50, 2)) | \(fmt(r.relayedTTFT.p99, 2)) | \(fmt(r.relayedRate.p50, 0)) | \(fmt(r.relayedRate.min, 0)) |

            Per pair: added time to first token p50 **\(fmt(r.addedTTFT.p50, 2)) ms** (p99 \(fmt(r.addedTTFT.p99, 2)) ms); \
            relayed tokens/s over direct p50 **\(fmt(100 * r.rateRatio.p50, 1))%** (min \(fmt(100 * r.rateRatio.min, 1))%).\
            \(r.fellBack > 0 ? " \(r.fellBack) relayed run(s) fell back on-device and are left out." : "")

            """)
        LatencyCPU.print(r)
    }
}
