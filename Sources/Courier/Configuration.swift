import Sealing
import Wire

extension Courier {
    /// Everything tunable. Every interval is configurable so tests run in milliseconds.
    public struct Configuration: Sendable {
        /// Bounds of part reassembly: largest message (16 MiB), incomplete messages held (16),
        /// how long a message may stay incomplete after its first part (60 s).
        public var reassembly = Reassembler.Configuration()
        /// The replay guard, with its window (7 days: must cover the relay's mailbox TTL),
        /// future skew (5 min) and capacity (65,536 ids). In memory only.
        public var replayGuard = ReplayGuard()
        /// How often incomplete messages past their deadline are dropped (also done on every frame).
        public var sweepInterval: Duration = .seconds(5)
        /// Deliveries buffered for a slow consumer. Beyond it a delivery is dropped (counted): mail
        /// stays unacked at the relay and comes again on the next connection; live is lost.
        public var deliveryBuffer = 1024
        /// Replies buffered per request stream (a slow reader beyond it loses replies, counted).
        public var replyBuffer = 4096
        /// Cancelled requests remembered so their late replies are dropped, not delivered.
        public var cancelledMemory = 256
        /// Reply streams remembered so that one request never gets two `ReplyWriter`s.
        public var writtenStreamMemory = 4096
        /// Mail frames from senders the directory does not know, held unacked (at most this many)
        /// until `retryHeld()` (a roster just named them) or `dropHeld()`. 0: dropped at once.
        public var holdUnknownMail = 0
        /// Unix milliseconds: envelope timestamps and the replay window. Tests may pin it.
        public var now: @Sendable () -> UInt64 = wallClockMs

        public init() {}
    }

    /// The longest a mail frame may wait at the relay: 7 days, the receivers' replay window
    /// (SPEC: a window is at least this). `sendMail` asks for no more: mail older than the window
    /// could not be opened, so a longer TTL would only keep a frame nobody can use.
    public static let maxMailTTL: Duration = .seconds(7 * 86_400)

    /// The largest body one relay frame carries (32,708 bytes with the relay's 64 KiB limit):
    /// a longer encoded message is split into `part` messages.
    public static let maxBodyPerFrame = Envelope.largestBody(sealedLimit: Limits.maxSealed)
    /// Bytes of one part: what a frame carries less the 25 bytes of a part (type byte included): 32,683.
    static let maxPartPayload = maxBodyPerFrame - Limits.partOverhead
}
