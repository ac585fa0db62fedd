// The crowd's baseline in the same run: the same requests straight to llama-server, admitted
// the way the Homebase admits them (`slots` at a time), timed from the common start.
import BenchSupport
import Inference
import Synchronization

extension Crowd {
    /// The same number of streams straight to llama-server, started at once but `slots` at a
    /// time (the Homebase's admission), each timed from the start like the relayed ones.
    static func direct(_ o: Options, engineURL: String) async -> (Double, Samples) {
        let client = OpenAIChatClient(.init(baseURL: engineURL))
        let next = Counter()
        let start = ContinuousClock.now
        let ttfts = await withTaskGroup(of: [Double].self) { group in
            for _ in 0..<o.slots {
                group.addTask {
                    var mine: [Double] = []
                    while true {
                        let s = next.take()
                        guard s < o.streams else { return mine }
                        let request = ChatRequest(model: "tiny", messages: [.init(role: .user, content: "Stream \(s): hello.")],
                                                  maxTokens: o.crowdTokens, temperature: 0.7)
                        var first: Double?
                        do {
                            for try await e in client.stream(request) {
                                if case .text(let t) = e, !t.isEmpty, first == nil { first = ms(.now - start) }
                            }
                        } catch {}
                        if let first { mine.append(first) }
                    }
                }
            }
            var all: [Double] = []
            for await part in group { all += part }
            return all
        }
        return (ms(.now - start), Samples(ttfts))
    }
}

/// Hands out 0, 1, 2, ... to concurrent workers.
final class Counter: Sendable {
    private let n = Mutex(0)
    func take() -> Int { n.withLock { v in defer { v += 1 }; return v } }
}
