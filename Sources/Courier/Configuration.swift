import Basics
import Sealing
import Wire

extension Courier {
    /// Everything tunable. Every interval is configurable so tests run in milliseconds.
    public struct Configuration: Sendable {
        /// Bounds of part reassembly: largest message (16 MiB), incomplete messages held in all
        /// (64), how long a message may stay incomplete after its first part (60 s).
        public var reassembly = Reassembler.Configuration(maxInFlight: 64)
        /// Who may hold how many incomplete messages (see `PartBudgets`).
        public var partBudgets = PartBudgets()
        /// The replay guard of ONE sender: window (7 days: must cover the relay's mailbox TTL),
        /// future skew (5 min) and ids remembered per sender (4,096). Each sender gets its own.
        public var replayGuard = ReplayGuard(capacity: 4_096)
        /// Senders whose replay state is kept (the least recently heard is forgotten beyond it;
        /// its envelopes from before are refused). 256 × 4,096 ids bound the state.
        public var replaySenders = 256
        /// Introductions: one guard per sender too, a small one (first contact is a few messages).
        public var introductionGuard = ReplayGuard(capacity: 16)
        /// Senders of introductions whose replay state is kept (anyone can make a key: many).
        public var introductionSenders = 1_024
        /// Introductions opened per sender per minute; more are dropped unopened (counted).
        public var introductionsPerMinute = 30
        /// Where replay state lives across restarts (the agents pass one in their data
        /// directory); nil keeps it in memory only.
        public var replayStore: ReplayStore? = nil
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
        /// How the frames of requests sent with `sendRequest` (and embed and manage requests) are
        /// padded (`RequestShaping`, SPEC 7). Off here; the guest sets its `request.shaping`.
        public var requestShaping: RequestShaping = .off
        /// Unix milliseconds: envelope timestamps and the replay window. Tests may pin it.
        public var now: @Sendable () -> UInt64 = { UInt64(clamping: wallClockMs()) }

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

/// How many incomplete multi-part messages, and how many bytes of them (their announced total
/// lengths), senders may hold at once: each sender on its own, and the account's own devices
/// (`DeviceDirectory.isOwnDevice`) apart from everyone else, so that no grantee, nor all of
/// them together, can take the room the account's own laptops need. A first part over a
/// budget is refused (counted `partsOverBudget`).
public struct PartBudgets: Sendable, Equatable {
    public struct Budget: Sendable, Equatable {
        public var messages: Int
        public var bytes: Int
        public init(messages: Int, bytes: Int) { self.messages = messages; self.bytes = bytes }
    }

    /// One sender: 4 messages, 32 MiB (two of the largest).
    public var perSender = Budget(messages: 4, bytes: 32 << 20)
    /// All the account's own devices together: 32 messages, 128 MiB.
    public var ownDevices = Budget(messages: 32, bytes: 128 << 20)
    /// Everyone else together (grantees, joined hosts): 32 messages, 128 MiB.
    public var others = Budget(messages: 32, bytes: 128 << 20)

    public init() {}
}
