import Courier
import Dispatch
import Inference
@testable import RelayRouting
import Routing
import Synchronization
import Testing

@Suite("after a rung fires, the fallback does not wait on the link")
struct DeadLinkCancelTests {
    /// The relay freezes (its loop blocked: the TCP connection stays up, nothing is forwarded or
    /// answered) after the first text; the stall rung fires. The guest's `cancel` cannot be
    /// settled while the relay is frozen (its live timeout is 5 s), yet the stream must end with
    /// the rung's failure first: the cancel's outcome comes after, once the relay thaws.
    @Test(arguments: ProviderPath.allCases) func theStallRungEndsTheStreamBeforeTheCancelIsSettled(via path: ProviderPath) async throws {
        let scene = try await Scene([.outputThenSilence(["Once "])], via: path)
        defer { scene.stop() }
        let thaw = DispatchSemaphore(value: 0)
        defer { thaw.signal() }
        let lines = Mutex<[String]>([])
        var limits = WatchdogLimits.relaxed
        limits.stall = .milliseconds(300)
        let provider = HomebaseProvider(kind: .own, hostKey: scene.host.record.signingKey, courier: scene.guest,
                                        ledger: scene.ledger, limits: limits,
                                        log: { line in lines.withLock { $0.append(line) } })
        var seen = Seen()
        var froze = false
        do {
            for try await e in provider.stream(ChatRequest(model: "tiny", messages: chat("a story"))) {
                seen.events.append(e)
                guard !froze else { continue }
                froze = true
                let loop = scene.relay.loop
                await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                    loop.execute { c.resume(); thaw.wait() }
                }
            }
        } catch {
            seen.failure = error
        }
        let settledBeforeTheEnd = lines.withLock { $0.contains { $0.contains("cancel outcome") } }
        #expect(seen.brainFailure == .watchdog(.stall) && seen.text == "Once ", "\(seen.events)")
        #expect(!settledBeforeTheEnd, "the stream waited for the cancel: \(lines.withLock { $0 })")
        thaw.signal()
        // The cancel still goes out, and reaches the host once the relay forwards again.
        try await eventually("the cancel's outcome") { lines.withLock { $0.contains { $0.contains("cancel outcome: sent") } } }
        try await eventually("cancel at the host") { scene.host.cancels == scene.host.requests.map(\.requestID) }
    }
}
