/// When answer text leaves as a sealed chunk: latency first, frame count second.
///
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
    }

    enum Action: Equatable, Sendable {
        /// Send this text now.
        case send(String)
        /// Nothing due before this instant (ns on the caller's monotonic clock); call again then.
        case wait(untilNs: UInt64)
        /// Nothing pending: wait for more text or the end.
        case idle
        /// The answer is over and everything has been handed out.
        case finished
    }

    let policy: Policy
    private var pending = ""
    private var pendingBytes = 0
    private var lastFlushNs: UInt64?
    private var ended = false

    init(policy: Policy = Policy()) { self.policy = policy }

    mutating func append(_ text: String) {
        guard !text.isEmpty else { return }
        pending += text
        pendingBytes += text.utf8.count
    }

    /// Nothing is pending.
    var isEmpty: Bool { pendingBytes == 0 }

    /// Enough text is pending to be sent without waiting for the window.
    var isFull: Bool { pendingBytes >= policy.maxBytes }

    /// No more text will come: what is pending is due at once.
    mutating func finish() { ended = true }

    mutating func next(nowNs: UInt64) -> Action {
        guard pendingBytes > 0 else { return ended ? .finished : .idle }
        let delayNs = UInt64(max(0, policy.maxDelay.nanoseconds))
        if let last = lastFlushNs, !ended, pendingBytes < policy.maxBytes, nowNs < last &+ delayNs {
            return .wait(untilNs: last &+ delayNs)
        }
        let out = pending
        pending = ""
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
