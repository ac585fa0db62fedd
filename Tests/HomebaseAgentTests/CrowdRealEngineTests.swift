import Courier
import EngineFixture
import Foundation
import Testing
import Wire
@testable import HomebaseAgent

/// A crowd of grantees asking at once, through a real relay (in process) and the real
/// llama-server on the tiny model: every request ends, answered or `busy`; none is left
/// without a word (bench-e2e's crowd: 742 of 1,000 streams never heard back).
@Suite(.realEngine, .serialized) struct CrowdRealEngineTests {
    /// More senders than the Courier's configured replay state holds, and more requests than
    /// max-concurrent + queue-length: past the cap, new senders were refused as replays in
    /// silence; past the queue, a request must hear `busy`.
    @Test func everyRequestOfACrowdEndsAnsweredOrBusy() async throws {
        let engine = try RealEngine.get()
        let crowd = 8
        let f = try await HostFixture(runtime: (engine.url, ["tiny"]), configure: { c in
            c.courier.replaySenders = 2
            c.maxConcurrent = 2
            c.queueLength = 3
            c.queueWait = .seconds(120)  // a queued request waits for a slot, not for the clock
        })
        try await withGrantees(crowd, of: f, model: "tiny") { sides in
            let host = f.host
            // Each asker yields its answer; the hang guard yields nil.
            let got = await withTaskGroup(of: (Int, Answer)?.self) { group in
                for (i, side) in sides.enumerated() {
                    group.addTask {
                        let (_, a) = await side.ask(request("tiny", "Crowd \(i): hello", maxTokens: 8), to: host)
                        return (i, a)
                    }
                }
                group.addTask {  // the hang guard, far beyond what the crowd needs
                    try? await Task.sleep(for: .seconds(120))
                    return nil
                }
                var all: [Int: Answer] = [:]
                for await result in group {
                    guard let (i, a) = result else { break }
                    all[i] = a
                    if all.count == crowd { break }
                }
                group.cancelAll()
                return all
            }
            let silent = (0..<crowd).filter { got[$0]?.ended != true }
            #expect(silent.isEmpty, "no done, no error for requests \(silent)")
            for (i, a) in got where a.ended {
                #expect(a.done != nil || a.error?.code == .busy, "request \(i): \(String(describing: a.error))")
            }
            #expect(got.values.contains { $0.done != nil })
        }
    }
}
