/// Counters for `status` commands. Kinds only: never contents, keys or ids.
public struct CourierStats: Equatable, Sendable {
    /// Envelopes opened, authenticated and accepted by the replay guard.
    public var opened = 0
    /// Introductions (first contact, HPKE base + the sender's own signed record) opened and accepted.
    public var introductions = 0
    /// Envelopes from a sender the directory does not know: dropped unopened.
    public var droppedUnknownSender = 0
    /// Envelopes that failed to open (tampered, wrong key, not for us, non-canonical).
    public var openFailed = 0
    /// Envelopes and introductions refused by the replay rules (seen id, outside the window, below the watermark).
    public var replays = 0
    /// Opened bodies that did not decode (or a reassembled message that was itself a part).
    public var malformed = 0
    /// Payloads of an unknown kind (neither envelope nor stream chunk): skipped.
    public var unknownPayloads = 0
    /// Messages completed from parts.
    public var partsReassembled = 0
    /// Incomplete messages dropped at their deadline.
    public var partsExpired = 0
    /// Parts refused by the reassembler (inconsistent, duplicate, over a bound, another sender's id).
    public var partsRefused = 0
    /// Stream chunks refused (openFailed, duplicate, dropped, reordered, afterFinal), by the stream.
    public var chunkFailures = 0
    /// Stream chunks for no registered request (cancelled, unknown, or from the wrong sender).
    public var unexpectedChunks = 0
    /// Replies to a cancelled request: dropped.
    public var lateReplies = 0
    /// First parts refused because their sender (or its class) held its budget of incomplete messages.
    public var partsOverBudget = 0
    /// Introductions dropped unopened: their sender was over its rate per minute.
    public var introductionsLimited = 0
    /// Messages not checked because the replay store failed (kept unacked for a retry).
    public var replayStoreFailures = 0
    /// Deliveries or replies lost because the consumer's buffer was full.
    public var bufferOverflows = 0
    /// `peer-gone` notices from the relay, and the open requests they ended.
    public var peerGone = 0
    public var requestsEndedByPeerGone = 0

    public init() {}
}
