import Wire

/// When answer events leave as a sealed chunk: latency first, frame count second.
///
/// Events are the typed reply stream's (`ReplyEvent`); a version 1 requester gets the text ones
/// as raw text. Adjacent pieces of one kind merge (text with text, reasoning with reasoning,
/// argument pieces of the same tool call, logprobs with logprobs; text also past the logprobs
/// record that follows it), so coalescing costs no record per token.
/// The first text of an answer is sent at once (time to first token is what a reader feels).
/// After that, text arriving within `maxDelay` of the last flush is coalesced into one chunk,
/// which is sent when the delay has passed or `maxBytes` have gathered, whichever is first. A
/// token that arrives after a pause longer than `maxDelay` goes out at once. So the added
/// latency per token is at most `maxDelay`, and an engine streaming 5,000 tokens/s costs about
/// 1/maxDelay frames per second instead of 5,000 (and blurs token timing for the relay, as
/// SPEC section 7 advises).
///
/// A pure state machine: callers feed it text and the clock, and do what `next` says.
struct ChunkBatcher: Sendable {
    struct Policy: Sendable, Equatable {
        /// Longest a piece of text waits for company. Default 20 ms.
        var maxDelay: Duration = .milliseconds(20)
        /// Flush at once when this much text is pending. Default 1,019 bytes: the data that fits
        /// the 1,024-byte chunk bucket (SPEC 5: 5 bytes of header), so a full batch pads little.
        var maxBytes = 1_019
        /// Chunks handed to the link and not yet confirmed by the relay before the next one
        /// waits (text gathers meanwhile): frames need no confirmation each to leave, but a
        /// stream due faster than the relay answers stays at this many frames per round trip.
        var maxInFlight = 4
        /// After this long without a frame of the stream, an empty chunk goes out (SPEC.md: the
        /// requester's watchdog sees the host alive while the engine works). nil: never.
        var keepAlive: Duration?
        /// The side-channel defence (`ReplyShaping`); `.off` is the coalescing above alone.
        var shaping = Shaping(level: .off)
    }

    enum Action: Equatable, Sendable {
        /// Send these events now.
        case send([ReplyEvent])
        /// Nothing due before this instant (ns on the caller's monotonic clock); call again then.
        case wait(untilNs: UInt64)
        /// Nothing pending: wait for more text or the end.
        case idle
        /// The answer is over and everything has been handed out.
        case finished
    }

    let policy: Policy
    // Internal, not private: `shapedNext` (ReplyShaping.swift) works on them too.
    var pending: [ReplyEvent] = []
    var pendingBytes = 0
    var lastFlushNs: UInt64?
    var ended = false
    var shape = ShapeState()

    init(policy: Policy = Policy()) { self.policy = policy }

    mutating func append(_ text: String) { append(.text(text)) }

    mutating func append(_ event: ReplyEvent) {
        switch (pending.last, event) {
        case (_, .text("")), (_, .reasoning("")): return
        case (.text(let a)?, .text(let b)): pending[pending.count - 1] = .text(a + b)
        case (.reasoning(let a)?, .reasoning(let b)): pending[pending.count - 1] = .reasoning(a + b)
        case (.toolCallDelta(var a)?, .toolCallDelta(let b)) where a.index == b.index && b.id == nil && b.name == nil:
            a.arguments += b.arguments
            pending[pending.count - 1] = .toolCallDelta(a)
        case (.logprobs(let a)?, .logprobs(let b)): pending[pending.count - 1] = .logprobs(a + b)
        case (.logprobs?, .text(let b)) where pending.count >= 2:
            // Text, logprobs, text, logprobs... gathers as one of each: a reader takes them apart anyway.
            if case .text(let a) = pending[pending.count - 2] { pending[pending.count - 2] = .text(a + b) } else { pending.append(event) }
        default:
            pending.append(event)  // (its 5 record header bytes are not counted: text is what the limit measures)
        }
        pendingBytes += Self.size(event)
    }

    /// About what `event` adds to a record's body.
    static func size(_ event: ReplyEvent) -> Int {
        switch event {
        case .text(let t), .reasoning(let t): t.utf8.count
        case .toolCallDelta(let d): 3 + (d.id?.utf8.count ?? 0) + (d.name?.utf8.count ?? 0) + d.arguments.utf8.count
        case .toolCall(let c): 8 + c.id.utf8.count + c.name.utf8.count + c.argumentsJSON.utf8.count
        case .ignoredOptions(let k): 2 + 2 * k.count
        case .logprobs(let l):
            l.reduce(2) { sum, e in
                e.top.reduce(sum + 12 + e.token.utf8.count + (e.bytes?.count ?? 0)) { $0 + 11 + $1.token.utf8.count + ($1.bytes?.count ?? 0) }
            }
        case .unknown: 0
        }
    }

    /// Nothing is pending.
    var isEmpty: Bool { pendingBytes == 0 }

    /// Enough text is pending to be sent without waiting for the window.
    var isFull: Bool { pendingBytes >= policy.maxBytes }

    /// No more text will come: what is pending is due at once.
    mutating func finish() { ended = true }

    mutating func next(nowNs: UInt64) -> Action {
        policy.shaping.level == .off ? coalescedNext(nowNs: nowNs) : shapedNext(nowNs: nowNs)
    }

    /// The end in one hand-off, once the engine is done (`finish()`): the pending events (they
    /// ride the final chunk, without waiting out the window) and the empty padding chunks due
    /// before it (`padded`: up to the length class, the final chunk included; `off`: none), all
    /// counted as handed out. Nil while the answer goes on, under `cadence` (its chunks keep the
    /// tick and one size), and before a `padded` boundary's first release: `next` then goes on.
    mutating func takeEnd() -> (tail: [ReplyEvent], pads: Int)? {
        let s = policy.shaping
        guard ended, s.level != .cadence else { return nil }
        if s.level == .padded, s.boundary > .zero, shape.frames == 0, pendingBytes > 0 { return nil }
        let tail = pending
        pending = []
        pendingBytes = 0
        var pads = 0
        if s.level == .padded {
            while !s.isClass(shape.frames + pads) { pads += 1 }
            shape.frames += pads
        }
        return (tail, pads)
    }

    mutating func coalescedNext(nowNs: UInt64) -> Action {
        guard pendingBytes > 0 else { return ended ? .finished : .idle }
        let delayNs = UInt64(max(0, policy.maxDelay.nanoseconds))
        if let last = lastFlushNs, !ended, pendingBytes < policy.maxBytes, nowNs < last &+ delayNs {
            return .wait(untilNs: last &+ delayNs)
        }
        let out = pending
        pending = []
        pendingBytes = 0
        lastFlushNs = nowNs
        return .send(out)
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let c = components
        return c.seconds &* 1_000_000_000 &+ c.attoseconds / 1_000_000_000
    }
}
