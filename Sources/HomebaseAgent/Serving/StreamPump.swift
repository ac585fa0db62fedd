import Dispatch
import Inference
import PeerLink
import Synchronization

/// How one streamed answer ended.
enum PumpResult: Sendable, Equatable {
    /// The engine finished and every chunk was handed to the link.
    case done(finishReason: String, usage: Usage?, text: String)
    /// The engine failed (after the text so far was sent).
    case engineFailed(InferenceError, text: String)
    /// A chunk came back `notHere` (or the link is gone): the engine request was aborted.
    case requesterGone
    /// The serving task was cancelled (a `cancel` from the requester, or shutdown).
    case cancelled
}

/// Moves one answer from the engine to the requester: one child task reads the engine's event
/// stream into a `ChunkBatcher`, the calling task sends what the batcher says is due. The
/// engine is never slowed by the relay (text piles up in the batcher while a chunk is sent),
/// and a requester that is gone, or a cancel, ends the engine request at once: cancelling the
/// reader cancels the HTTP transfer, so the engine sees the connection close and frees its slot.
enum StreamPump {
    /// Observes each chunk: its text length and the nanoseconds from the arrival of the engine
    /// event that made it due to the chunk's hand-off to the link (benchmarks, never logs of text).
    typealias Probe = @Sendable (_ bytes: Int, _ waitedNs: UInt64) -> Void

    /// `opening` (the `accept`) runs while the engine already works on the prompt: nothing is
    /// sent before it returns, and false (the requester is gone) ends the engine request.
    static func run(_ events: AsyncThrowingStream<ChatEvent, Error>, policy: ChunkBatcher.Policy,
                    probe: Probe? = nil, opening: (@Sendable () async -> Bool)? = nil,
                    send: @escaping @Sendable (String) async -> LiveOutcome) async -> PumpResult {
        let shared = Shared(policy: policy)
        return await withTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    for try await event in events {
                        switch event {
                        case .text(let t): shared.append(t)
                        case .toolCall: break  // requests with tools never cross the wire
                        case .done(let reason, let usage): shared.end(.done(finishReason: reason, usage: usage, text: ""))
                        }
                    }
                    shared.end(.engineFailed(.interrupted, text: ""))  // a stream without `.done`
                } catch let e as InferenceError {
                    shared.end(Task.isCancelled ? .cancelled : .engineFailed(e, text: ""))
                } catch {
                    shared.end(Task.isCancelled ? .cancelled : .engineFailed(.malformed("\(type(of: error))"), text: ""))
                }
            }
            if let opening, await opening() == false {
                group.cancelAll()
                return .requesterGone
            }
            let outcome = await sendLoop(shared, probe: probe, send: send)
            group.cancelAll()
            return outcome
        }
    }

    private static func sendLoop(_ shared: Shared, probe: Probe?,
                                 send: @Sendable (String) async -> LiveOutcome) async -> PumpResult {
        var wakeups = shared.wakeups.makeAsyncIterator()
        var text = ""
        while true {
            if Task.isCancelled { return .cancelled }
            let now = DispatchTime.now().uptimeNanoseconds
            switch shared.next(nowNs: now) {
            case .send(let piece, let since):
                probe?(piece.utf8.count, DispatchTime.now().uptimeNanoseconds &- since)
                text += piece
                let outcome = await send(piece)
                if outcome == .notHere || outcome == .failed(.linkDown) || outcome == .failed(.stopped) {
                    return .requesterGone
                }
            case .wait(let until):
                // Until the batch window closes, or sooner: the end, or a full batch, wakes us.
                let timer = Task { [shared] in
                    try? await Task.sleep(nanoseconds: until &- min(until, DispatchTime.now().uptimeNanoseconds))
                    if !Task.isCancelled { shared.poke() }
                }
                _ = await wakeups.next()
                timer.cancel()
            case .idle:
                _ = await wakeups.next()
            case .finished(let end):
                switch end {
                case .done(let r, let u, _): return .done(finishReason: r, usage: u, text: text)
                case .engineFailed(let e, _): return .engineFailed(e, text: text)
                default: return end
                }
            }
        }
    }

    /// The batcher and the engine's ending, shared by the two tasks.
    final class Shared: Sendable {
        enum Next { case send(String, sinceNs: UInt64), wait(UInt64), idle, finished(PumpResult) }
        private let state: Mutex<(batcher: ChunkBatcher, firstPendingNs: UInt64?, end: PumpResult?)>
        let wakeups: AsyncStream<Void>
        private let wake: AsyncStream<Void>.Continuation

        init(policy: ChunkBatcher.Policy) {
            state = Mutex((ChunkBatcher(policy: policy), nil, nil))
            (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        }

        /// Wakes the send loop only when that changes what it should do: the first pending text
        /// (it may be idle) or a full batch (it may be waiting out the window), not every token.
        func append(_ text: String) {
            let now = DispatchTime.now().uptimeNanoseconds
            let wakeUp = state.withLock { s in
                let wasEmpty = s.firstPendingNs == nil
                s.batcher.append(text)
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

        func next(nowNs: UInt64) -> Next {
            state.withLock { s in
                switch s.batcher.next(nowNs: nowNs) {
                case .send(let t):
                    defer { s.firstPendingNs = nil }
                    return .send(t, sinceNs: s.firstPendingNs ?? nowNs)
                case .wait(let until): return .wait(until)
                case .idle: return .idle
                case .finished: return .finished(s.end ?? .cancelled)
                }
            }
        }
    }
}
