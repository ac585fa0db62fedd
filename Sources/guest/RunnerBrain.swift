import GuestAgent
import Inference
import LocalAPI
import Routing
import Synchronization

/// `guest serve`'s brain for one request: the same fallback runner as `guest chat` (the router
/// chooses, any failure continues on-device, the floor last), seen by LocalAPI as one provider.
/// Its `brain` is the one speaking now, so the `X-Homebase-Brain` header names who produced the
/// first text and the final `homebase` object names who finished the answer.
final class RunnerBrain: AnswerReporting {
    private struct State {
        var brain: BrainKind = .onDevice
        var report: [String: String] = [:]
    }

    let runner: AnswerRunner
    private let state = Mutex(State())

    init(runner: AnswerRunner) { self.runner = runner }

    var brain: BrainKind { state.withLock { $0.brain } }
    var report: [String: String] { state.withLock { $0.report } }

    func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error> {
        let (events, out) = AsyncThrowingStream.makeStream(of: ChatEvent.self)
        let task = Task {
            do {
                let answer = try await runner.run(
                    request, onText: { out.yield(.text($0)) },
                    onBrain: { b in self.state.withLock { $0.brain = b } },
                    onToolCall: { out.yield(.toolCall($0)) },
                    onEvent: { out.yield($0) })
                let m = answer.metadata
                state.withLock { $0 = State(brain: m.brain, report: Self.report(m)) }
                let usage = m.completionTokens.map { Usage(promptTokens: m.promptTokens ?? 0, completionTokens: $0) }
                // The floor's notice is a complete answer; clients only know the usual reasons.
                let reason = m.brain == .floor ? "stop" : m.finishReason ?? "stop"
                out.yield(.done(finishReason: reason, usage: usage))
                out.finish()
            } catch let refusal as RoutingError {
                if case .tooLarge = refusal {
                    out.finish(throwing: LocalAPIError.tooLarge(refusal.description))  // answered 413
                } else {
                    out.finish(throwing: LocalAPIError.unservable(refusal.description))  // answered 422
                }
            } catch {
                out.finish(throwing: InferenceError.cancelled)  // the client went away
            }
        }
        out.onTermination = { reason in
            if case .cancelled = reason { task.cancel() }
        }
        return events
    }

    /// What clients may see of the answer's metadata: the router's reason, its speed (the page
    /// shows them under the answer) and any fallback.
    static func report(_ m: AnswerMetadata) -> [String: String] {
        var r = ["route_reason": m.routeReason]
        if let t = m.timeToFirstTokenMs { r["ttft_ms"] = String(Int(t.rounded())) }
        if let v = m.tokensPerSecond { r["tokens_per_second"] = String(Int(v.rounded())) }
        if let first = m.tried.first {
            r["chosen"] = first.brain.rawValue
            r["fell_back_from"] = m.tried.map(\.brain.rawValue).joined(separator: ",")
            r["fallback_reason"] = m.tried.last!.why
        }
        return r
    }
}
