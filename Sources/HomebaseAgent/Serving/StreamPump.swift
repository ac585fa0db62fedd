import Dispatch
import Inference
import PeerLink
import Synchronization
import Wire
import InferenceWire

/// How one streamed answer ended.
enum PumpResult: Sendable, Equatable {
    /// The engine finished and every chunk was handed to the link. `text` and `toolCalls` are
    /// the answer as the conversation keeps it (`tail` included). With `endInOne`: `tail`, the
    /// events not sent yet, and `pads`, the empty padding chunks due before the final one, go
    /// out with the final chunk and `done` (`ReplyWriter.finish`), in one hand-off.
    case done(finishReason: String, usage: Usage?, text: String, toolCalls: [ToolCall] = [], tail: [ReplyEvent] = [], pads: Int = 0)
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

    /// Hands one chunk to the link and returns at once, without waiting for the relay to confirm
    /// it; `outcome` (any thread) hears its fate later. Chunks must leave in call order. No
    /// events: the keep-alive (an empty chunk).
    typealias Post = @Sendable (_ events: [ReplyEvent], _ outcome: @escaping @Sendable (LiveOutcome) -> Void) -> Void

    /// The confirmed form: each chunk's outcome awaited before the next is sent. `opening` (the
    /// `accept`) runs while the engine already works on the prompt: nothing is sent before it
    /// returns, and false (the requester is gone) ends the engine request.
    static func run(_ events: AsyncThrowingStream<ChatEvent, Error>, policy: ChunkBatcher.Policy,
                    probe: Probe? = nil, typed: Bool = false, opening: (@Sendable () async -> Bool)? = nil,
                    send: @escaping @Sendable ([ReplyEvent]) async -> LiveOutcome) async -> PumpResult {
        var open: Opening?
        if let opening { open = { @Sendable _ in await opening() } }
        return await run(events, policy: policy, probe: probe, typed: typed, preamble: [], sender: .awaited(send), opening: open)
    }

    /// The pipelined form: chunks are posted without waiting for the confirmation of the ones
    /// before, at most `policy.maxInFlight` unconfirmed at a time (text gathers in the batcher
    /// meanwhile). `opening` is handed the pump's outcome hook: it posts `accept` with it and
    /// returns at once, so the first chunk follows `accept` on the link instead of waiting a
    /// relay round trip for it. A `notHere`, `linkDown` or `stopped` heard for any frame ends
    /// the engine request (`.requesterGone`).
    ///
    /// `typed`: the requester reads the typed reply stream (a version 2 request): reasoning and
    /// tool-call events are forwarded; otherwise only text is (an older guest could not show
    /// them). `preamble` goes first (the `ignored-options` event).
    ///
    /// `ready` is awaited before `opening` (the engine already works): false ends the engine
    /// request with nothing sent (`.requesterGone`). `endInOne`: once the engine is done, what
    /// is pending is not sent as a chunk but returned (`PumpResult.done`'s `tail` and `pads`) for
    /// the caller to send with the final chunk and `done` (not under `cadence`: see `takeEnd`).
    static func run(_ events: AsyncThrowingStream<ChatEvent, Error>, policy: ChunkBatcher.Policy,
                    probe: Probe? = nil, trace: TimingTrace? = nil, typed: Bool = false, preamble: [ReplyEvent] = [],
                    endInOne: Bool = false, ready: (@Sendable () async -> Bool)? = nil,
                    opening: (@Sendable (_ outcome: @escaping @Sendable (LiveOutcome) -> Void) -> Bool)?,
                    post: @escaping Post) async -> PumpResult {
        var open: Opening?
        if let opening {
            open = { @Sendable heard in
                if let ready, await ready() == false { return false }
                return opening(heard)
            }
        } else if let ready {
            open = { @Sendable _ in await ready() }
        }
        return await run(events, policy: policy, probe: probe, trace: trace, typed: typed, preamble: preamble,
                         sender: .posted(post), opening: open, endInOne: endInOne)
    }

    private typealias Opening = @Sendable (_ outcome: @escaping @Sendable (LiveOutcome) -> Void) async -> Bool

    private enum Sender {
        case awaited(@Sendable ([ReplyEvent]) async -> LiveOutcome)
        case posted(Post)
    }

    private static func run(_ events: AsyncThrowingStream<ChatEvent, Error>, policy: ChunkBatcher.Policy, probe: Probe?,
                            trace: TimingTrace? = nil, typed: Bool, preamble: [ReplyEvent], sender: Sender,
                            opening: Opening?, endInOne: Bool = false) async -> PumpResult {
        let shared = Shared(policy: policy, pipelined: { if case .posted = sender { true } else { false } }(), endInOne: endInOne)
        for e in preamble { shared.append(e) }
        return await withTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    for try await event in events {
                        switch event {
                        case .text(let t):
                            if !t.isEmpty { trace?.mark(.firstEngineText) }
                            shared.append(.text(t))
                        case .toolCall, .toolCallDelta, .reasoning, .logprobs:
                            // A version 1 requester reads text only: it never sent tools.
                            if typed, let e = WireBridge.replyEvent(event) { shared.append(e) }
                        case .done(let reason, let usage):
                            trace?.mark(.engineDone)
                            shared.end(.done(finishReason: reason, usage: usage, text: ""))
                        }
                    }
                    shared.end(.engineFailed(.interrupted, text: ""))  // a stream without `.done`
                } catch let e as InferenceError {
                    shared.end(Task.isCancelled ? .cancelled : .engineFailed(e, text: ""))
                } catch {
                    shared.end(Task.isCancelled ? .cancelled : .engineFailed(.malformed("\(type(of: error))"), text: ""))
                }
            }
            if let opening, await opening({ shared.heard($0, inFlight: false) }) == false {
                group.cancelAll()
                return .requesterGone
            }
            let outcome = await sendLoop(shared, probe: probe, trace: trace, sender: sender)
            group.cancelAll()
            return outcome
        }
    }

    /// The outcomes that say the requester cannot be reached any more: stop generating.
    static func isGone(_ outcome: LiveOutcome) -> Bool {
        outcome == .notHere || outcome == .failed(.linkDown) || outcome == .failed(.stopped)
    }

    private static func sendLoop(_ shared: Shared, probe: Probe?, trace: TimingTrace?, sender: Sender) async -> PumpResult {
        var wakeups = shared.wakeups.makeAsyncIterator()
        var text = ""
        var calls: [ToolCall] = []
        // Since the last frame of this stream left: a silence of `keepAlive` sends an empty chunk.
        var lastSentNs = DispatchTime.now().uptimeNanoseconds
        let keepAliveNs = shared.policy.keepAlive.map { UInt64(max(1, $0.nanoseconds)) }
        while true {
            if Task.isCancelled { return .cancelled }
            let now = DispatchTime.now().uptimeNanoseconds
            var next = shared.next(nowNs: now)
            if case .idle = next, let keepAliveNs {
                // Nothing to say: the engine works (a long prompt's prefill) or pauses. An empty
                // chunk tells the requester we are alive; its watchdog restarts its rung.
                if now &- lastSentNs >= keepAliveNs, shared.keepAlive() {
                    next = .send([], sinceNs: now)
                } else if now &- lastSentNs < keepAliveNs {
                    next = .wait(lastSentNs &+ keepAliveNs)
                }
            }
            switch next {
            case .send(let piece, let since):
                if !piece.isEmpty { probe?(piece.reduce(0) { $0 + ChunkBatcher.size($1) }, DispatchTime.now().uptimeNanoseconds &- since) }
                for e in piece {
                    if case .text(let t) = e { text += t }
                    if case .toolCall(let c) = e { calls.append(ToolCall(id: c.id, name: c.name, argumentsJSON: c.argumentsJSON)) }
                }
                lastSentNs = DispatchTime.now().uptimeNanoseconds
                switch sender {
                case .awaited(let send):
                    if isGone(await send(piece)) { return .requesterGone }
                case .posted(let post):
                    post(piece) { shared.heard($0, inFlight: true) }
                    if !piece.isEmpty { trace?.mark(.firstChunkPosted) }
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
            case .finished(let end, let since):
                switch end {
                case .done(let r, let u, _, _, let tail, let pads):
                    if !tail.isEmpty {
                        probe?(tail.reduce(0) { $0 + ChunkBatcher.size($1) }, DispatchTime.now().uptimeNanoseconds &- since)
                        trace?.mark(.firstChunkPosted)  // the whole answer may ride the final chunk (handed off next)
                    }
                    for e in tail {
                        if case .text(let t) = e { text += t }
                        if case .toolCall(let c) = e { calls.append(ToolCall(id: c.id, name: c.name, argumentsJSON: c.argumentsJSON)) }
                    }
                    return .done(finishReason: r, usage: u, text: text, toolCalls: calls, tail: tail, pads: pads)
                case .engineFailed(let e, _): return .engineFailed(e, text: text)
                default: return end
                }
            }
        }
    }
}
