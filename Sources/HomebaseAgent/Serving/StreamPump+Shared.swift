import Dispatch
import PeerLink
import Synchronization
import Wire

extension StreamPump {
    /// The batcher, the engine's ending and the link's verdicts, shared by the tasks.
    final class Shared: Sendable {
        /// `finished`'s `sinceNs`: when the first of its `tail` events came (now when none).
        enum Next { case send([ReplyEvent], sinceNs: UInt64), wait(UInt64), idle, finished(PumpResult, sinceNs: UInt64) }
        private struct State {
            var batcher: ChunkBatcher
            var firstPendingNs: UInt64?
            var end: PumpResult?
            /// Posted chunks whose outcome is not heard yet (the pipelined form only).
            var inFlight = 0
            /// A frame of this stream came back `notHere`, `linkDown` or `stopped`.
            var gone = false
        }
        private let state: Mutex<State>
        let policy: ChunkBatcher.Policy
        /// Posted chunks not yet confirmed before the next waits; nil: chunks are awaited one by one.
        private let window: Int?
        /// The end in one hand-off (`StreamPump.run`'s `endInOne`).
        private let endInOne: Bool
        let wakeups: AsyncStream<Void>
        private let wake: AsyncStream<Void>.Continuation

        init(policy: ChunkBatcher.Policy, pipelined: Bool, endInOne: Bool = false) {
            state = Mutex(State(batcher: ChunkBatcher(policy: policy)))
            self.policy = policy
            self.endInOne = endInOne
            window = pipelined ? max(1, policy.maxInFlight) : nil
            (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        }

        /// Wakes the send loop only when that changes what it should do: the first pending text
        /// (it may be idle) or a full batch (it may be waiting out the window), not every token.
        func append(_ event: ReplyEvent) {
            let now = DispatchTime.now().uptimeNanoseconds
            let wakeUp = state.withLock { s in
                let wasEmpty = s.firstPendingNs == nil
                s.batcher.append(event)
                if wasEmpty { s.firstPendingNs = now }
                return wasEmpty || s.batcher.isFull
            }
            if wakeUp { wake.yield() }
        }

        func poke() { wake.yield() }

        func end(_ result: PumpResult) {
            state.withLock { s in
                if s.end == nil { s.end = result }
                s.batcher.finish()
            }
            wake.yield()
        }

        /// The link's verdict on a posted frame (`inFlight`: a chunk counted against the window;
        /// else `accept`). Wakes the loop only when it was held by the window, or it must stop.
        func heard(_ outcome: LiveOutcome, inFlight: Bool) {
            let wakeUp = state.withLock { s in
                let wasHeld = window.map { s.inFlight >= $0 } ?? false
                if inFlight { s.inFlight -= 1 }
                if StreamPump.isGone(outcome) { s.gone = true }
                return s.gone || wasHeld
            }
            if wakeUp { wake.yield() }
        }

        /// Claims a keep-alive: only when no text waits, the stream goes on and the window has
        /// room (it then counts against the window like any chunk).
        func keepAlive() -> Bool {
            state.withLock { s in
                guard s.end == nil, !s.gone, s.batcher.isEmpty, window.map({ s.inFlight < $0 }) ?? true else { return false }
                if window != nil { s.inFlight += 1 }
                s.batcher.noteFrame()
                return true
            }
        }

        func next(nowNs: UInt64) -> Next {
            state.withLock { s in
                if s.gone { return .finished(.requesterGone, sinceNs: nowNs) }
                // The engine is done: the last batch waits for nothing (no window, no confirmation).
                if endInOne, case .done(let r, let u, let t, let c, _, _)? = s.end, let end = s.batcher.takeEnd() {
                    defer { s.firstPendingNs = nil }
                    return .finished(.done(finishReason: r, usage: u, text: t, toolCalls: c, tail: end.tail, pads: end.pads),
                                     sinceNs: s.firstPendingNs ?? nowNs)
                }
                if let window, s.inFlight >= window, !s.batcher.isEmpty { return .idle }  // a confirmation wakes us
                switch s.batcher.next(nowNs: nowNs) {
                case .send(let t):
                    defer { s.firstPendingNs = nil }
                    if window != nil { s.inFlight += 1 }
                    return .send(t, sinceNs: s.firstPendingNs ?? nowNs)
                case .wait(let until): return .wait(until)
                case .idle: return .idle
                case .finished: return .finished(s.end ?? .cancelled, sinceNs: nowNs)
                }
            }
        }
    }
}
