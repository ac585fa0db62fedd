import Courier
import Inference
import Sealing
import Signing

/// A Homebase reached through the relay: the guest's own account's (`.own`, brain
/// `.ownHomebase`) or another account's it joined (`.joined`, brain `.joinedHomebase`).
///
/// Each `stream` sends one sealed `live` request (conversation id, the prefix hash the host is
/// believed to hold per the ledger, only the messages after it, or the whole conversation
/// inline) and streams the answer's events (`.text`, `.reasoning`, `.toolCallDelta`,
/// `.toolCall`) while they arrive, then `.done`. Failures are `BrainFailure`s (Routing),
/// thrown from the stream, and the caller falls back on-device, continuing from the text it
/// has already seen:
///
/// - not delivered: `.notHere` (the relay's `not-here`), `.notSent` (link down, dropped, no
///   record), at once, nothing owed; `.notSealed` / `.tooLarge` when this guest could not seal it;
/// - a watchdog rung: `.watchdog(.accept | .firstOutput | .stall)` (`WatchdogLimits`);
/// - the host's `error`: `.host(code, message:)` (`busy`, `revoked`, `model_unavailable`, ...);
/// - the relay's `peer-gone` for the host: `.hostGone(reason)`;
/// - a refused chunk or a stream that ends without `done`: `.interrupted`;
/// - the consumer stopped reading: `.cancelled`.
///
/// Exactly one repair before failing, and only before any text: `diverged` from the own
/// Homebase sends the `sync-delta` that rebuilds its replica from the empty prefix
/// (`ConversationPlan.reconcilingDelta`) and retries once; `cache_miss` from a joined Homebase
/// retries once with the whole conversation inline. After any failure of a request that may
/// have arrived, `cancel` goes to the host so its GPU slot is freed. Tools, images and options
/// travel (request version 2); whether a request may go to a Homebase at all is the router's
/// decision. A request over `Limits` is refused before sending (`.tooLarge`).
public struct HomebaseProvider: ChatProvider {
    /// Whose Homebase: decides the brain and which repair applies.
    public enum Kind: Sendable, Equatable {
        /// Our own account's Homebase: keeps a replica; repairs `diverged`.
        case own
        /// Another account's Homebase: caches prefixes; repairs `cache_miss`.
        case joined
    }

    public let kind: Kind
    public let hostKey: PublicKey
    public let limits: WatchdogLimits
    let courier: Courier
    let directory: any DeviceDirectory
    let ledger: any ConversationLedger
    let log: (@Sendable (String) -> Void)?

    /// - Parameters:
    ///   - hostKey: the host's signing key; its record is looked up in `directory` at each call.
    ///   - courier: the link to the relay the host is on.
    ///   - directory: where host records are found (default: the Courier's own).
    ///   - ledger: what each host is believed to hold (shared by every provider of this guest).
    ///   - log: one line per repair and failure: causes only, never prompt or answer text.
    public init(kind: Kind, hostKey: PublicKey, courier: Courier, directory: (any DeviceDirectory)? = nil,
                ledger: any ConversationLedger, limits: WatchdogLimits = WatchdogLimits(),
                log: (@Sendable (String) -> Void)? = nil) {
        self.kind = kind; self.hostKey = hostKey; self.courier = courier
        self.directory = directory ?? courier.directory
        self.ledger = ledger; self.limits = limits; self.log = log
    }

    public var brain: BrainKind { kind == .own ? .ownHomebase : .joinedHomebase }

    public func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error> {
        let (events, sink) = AsyncThrowingStream.makeStream(of: ChatEvent.self)
        let exchange = Exchange(provider: self, sink: sink)
        let task = Task {
            if let failure = await exchange.answer(request) {
                sink.finish(throwing: failure)
            } else {
                sink.finish()
            }
        }
        // The consumer walked away: the exchange sees the cancellation and sends `cancel`.
        sink.onTermination = { _ in task.cancel() }
        return events
    }
}
