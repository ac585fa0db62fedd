import Foundation
import Inference
import Synchronization
import Testing
import Wire
@testable import HomebaseAgent

/// Prints the Homebase's cost on the real tiny model (docs/BENCHMARKS.md, "Homebase"): the time
/// from an engine chunk arriving to its sealed chunk being handed to the link (p50/p99), and
/// tokens/s through the Homebase and the relay versus the engine alone. Asserts only that every
/// answer was complete: numbers are printed, never asserted.
@Suite(.realEngine, .serialized) struct BenchmarkTests {
    static let tokens: UInt32 = 512
    static let rounds = 4

    @Test func throughputThroughTheHomebaseVersusTheEngineAlone() async throws {
        let engine = try RealEngine.get()
        let waits = Mutex<[UInt64]>([])
        let chunks = Mutex(0)
        try await HostFixture.with(runtime: (engine.url, ["tiny"]), configure: { c in
            c.chunkProbe = { _, ns in waits.withLock { $0.append(ns) }; chunks.withLock { $0 += 1 } }
        }) { f in
            let client = OpenAIChatClient(.init(baseURL: engine.url))
            var direct: [Double] = [], relayed: [Double] = []
            let clock = ContinuousClock()
            for round in 0..<Self.rounds {
                if round % 2 == 1 { relayed.append(try await throughHomebase(f)) }
                // The engine alone: request sent to `.done`.
                let start = clock.now
                var usage: Usage?
                for try await e in client.stream(ChatRequest(model: "tiny", messages: [.init(role: .user, content: "Go")],
                                                             maxTokens: Int(Self.tokens), temperature: 0)) {
                    if case .done(_, let u) = e { usage = u }
                }
                let t1 = clock.now - start
                #expect(usage?.completionTokens == Int(Self.tokens))
                direct.append(Double(Self.tokens) / seconds(t1))
                if round % 2 == 0 { relayed.append(try await throughHomebase(f)) }
            }
            let w = waits.withLock { $0 }.sorted()
            let d = median(direct), r = median(relayed)
            print("direct: \(direct.map { Int($0) }) relayed: \(relayed.map { Int($0) })")
            print("""
                homebase bench: \(Self.rounds) rounds of \(Self.tokens) tokens, tiny model, loopback relay
                  engine alone:        \(Int(d)) tokens/s (median)
                  through homebase:    \(Int(r)) tokens/s (median) = \(String(format: "%.1f", 100 * r / d))% of the engine
                  chunks: \(chunks.withLock { $0 }) for \(Self.rounds * Int(Self.tokens)) tokens
                  engine text -> chunk handed to the link: p50 \(us(w, 0.5)) us, p99 \(us(w, 0.99)) us
                """)
        }
    }

    /// Through the Homebase and the relay: request sealed and sent to `done` opened; tokens/s.
    func throughHomebase(_ f: HostFixture) async throws -> Double {
        let start = ContinuousClock.now
        let (_, a) = await f.guest.ask(request("tiny", "Go", maxTokens: Self.tokens), to: f.host)
        let t = ContinuousClock.now - start
        #expect(a.done?.completionTokens == Self.tokens)
        #expect(a.failures.isEmpty)
        return Double(Self.tokens) / seconds(t)
    }

    func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }

    func us(_ sorted: [UInt64], _ q: Double) -> Int {
        guard !sorted.isEmpty else { return -1 }
        return Int(sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))] / 1000)
    }
}
