import Inference
import Wire

/// Why a brain did not answer: the rung of the fallback ladder that fired. One closed enum from
/// the relay-routed provider (RelayRouting throws it) through the runner (GuestAgent's
/// `AnswerRunner`, `AnswerMetadata.Attempt`, the cooldowns) to what people read; words only at
/// display (`description`: the log, `guest chat`'s dim line, `guest serve`'s `homebase` object).
/// docs/ARCHITECTURE.md, "The walk of one fallback".
public enum BrainFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The watchdog rungs of a relayed request (`WatchdogLimits`).
    public enum Rung: String, Sendable, Equatable {
        case accept
        case firstOutput = "first output"
        case stall
    }

    /// A watchdog rung fired.
    case watchdog(Rung)
    /// The relay answered `not-here`: the Homebase is not connected to it.
    case notHere
    /// The request surely did not arrive (no device record, no relay link, the relay dropped it,
    /// the link refused it, a repair not delivered): nothing owed, nothing to cancel.
    case notSent(String)
    /// The relay said the Homebase left mid-answer (`peer-gone`).
    case hostGone(PeerGoneReason)
    /// The host answered `error` with this code (repairs aside); `message` is for logs.
    case host(AppMessage.ErrorCode, message: String)
    /// This guest could not encode or seal the request: nothing was sent.
    case notSealed(String)
    /// The request is over a protocol limit (`Limits`): refused here, before sending.
    case tooLarge(String)
    /// The reply stream ended before `done` (a refused chunk, the link lost).
    case interrupted
    /// The caller stopped reading.
    case cancelled
    /// Any other brain's failure: a cloud, a local endpoint, the on-device engine.
    case brain(InferenceError)
    /// A failure another process told in words only (`guest serve`'s `fallback_reason`).
    case reported(String)

    /// What a provider threw, as a rung: a `BrainFailure` as it is, an `InferenceError` as the
    /// brain's own, anything else named by its type.
    public init(_ error: any Error) {
        switch error {
        case let f as BrainFailure: self = f
        case InferenceError.interrupted: self = .interrupted
        case InferenceError.cancelled: self = .cancelled
        case let e as InferenceError: self = .brain(e)
        default: self = .reported("unexpected failure: \(type(of: error))")
        }
    }

    /// The words people read (unchanged from when these were strings: logs and tests of
    /// other programs read them).
    public var description: String {
        switch self {
        case .watchdog(let rung): "timed out: \(rung.rawValue)"
        case .notHere: "runtime unreachable: the Homebase is not connected to the relay"
        case .notSent(let why): "runtime unreachable: \(why)"
        case .hostGone(let reason): "runtime unreachable: \(Self.words(reason))"
        case .host(.modelUnavailable, let message): "model unavailable: \(message)"
        case .host(let code, let message): "remote error \(code.name): \(message)"
        case .notSealed(let why): "the request could not be sealed: \(why)"
        case .tooLarge(let why): "too large to send: \(why)"
        case .interrupted: InferenceError.interrupted.description
        case .cancelled: InferenceError.cancelled.description
        case .brain(let e): e.description
        case .reported(let why): why
        }
    }

    /// How the relay's `peer-gone` for the host reads (the guest continues on-device at once).
    public static func words(_ reason: PeerGoneReason) -> String {
        switch reason {
        case .closed: "the Homebase left the relay mid-answer (its connection closed)"
        case .replaced: "the Homebase left the relay mid-answer (it reconnected)"
        case .silent: "the Homebase left the relay mid-answer (it stopped answering the relay)"
        default: "the Homebase left the relay mid-answer (\(reason))"
        }
    }

    /// It says the Homebase is gone or frozen, not merely failing: it never accepted, or the
    /// relay found it silent. Such a Homebase is cooled down (`CooldownFile`); its own error or
    /// a stall mid-answer says it is alive.
    public var coolsDown: Bool {
        switch self {
        case .watchdog(.accept), .hostGone(.silent): true
        default: false
        }
    }
}
