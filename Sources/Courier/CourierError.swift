import PeerLink
import Sealing
import Wire

/// The one error type of Courier. Descriptions name causes and sizes only: never message
/// contents (prompts, answers) and never key material.
public enum CourierError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The message could not be encoded (a field over its wire limit).
    case encoding(WireError)
    /// Sealing failed (a body over the envelope limit, a bad key in the record).
    case sealing(SealingError)
    /// The relay link refused or lost the frame (mail only; live sends return a `LiveOutcome`).
    case link(PeerLinkError)
    /// A `ReplyWriter` was asked for a delivery that is not an opened request.
    case notARequest
    /// A `ReplyWriter` already exists for this request: a second would reuse the stream's nonces.
    case alreadyAnswered
    /// The replay store's file could not be opened, is damaged or is not ours, or failed a
    /// check. It is never reset: move it away to start with empty replay state.
    case replayStore(path: String, detail: String)
    /// `stop()` was called.
    case stopped
    /// The calling task was cancelled while waiting (the relay may still have stored the frame).
    case cancelled

    public var description: String {
        switch self {
        case .encoding(let e): "courier: cannot encode message: \(e)"
        case .sealing(let e): "courier: cannot seal message: \(e)"
        case .link(let e): "courier: \(e)"
        case .notARequest: "courier: a reply writer needs an opened request delivery"
        case .alreadyAnswered: "courier: this request already has a reply writer"
        case let .replayStore(path, detail):
            "courier: replay store \(path): \(detail) (it is not reset; move it away to start with empty replay state)"
        case .stopped: "courier: stopped"
        case .cancelled: "courier: cancelled while waiting for the relay"
        }
    }
}
