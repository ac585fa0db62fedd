// Small code points of relay frames. Codes sent in `auth-refused` and `error` are open sets
// (a newer relay may send a code this version does not name): they are structs, not enums,
// so an unknown code decodes and round-trips. The delivery class is closed: a relay must not
// guess how to deliver, so an unknown class is an error.

/// How the relay delivers a `send`.
public enum DeliveryClass: UInt8, Sendable {
    /// Only to a connected recipient; otherwise `not-here` at once. Never stored.
    case live = 1
    /// Stored for an offline recipient until acknowledged or expired (`stored` / `mailbox-full`).
    case mail = 2
}

/// Why the relay refused an `auth` (the `reason` byte of `auth-refused`).
public struct AuthRefusalReason: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// The signature does not verify over the transcript.
    public static let badSignature = Self(rawValue: 1)
    /// The key is not admitted by this relay's policy (allowlist, closed relay).
    public static let notAdmitted = Self(rawValue: 2)
    /// The admission token is unknown, used up or expired.
    public static let badToken = Self(rawValue: 3)
    /// The account proof does not verify.
    public static let badAccountProof = Self(rawValue: 4)
    /// Too many attempts; try later.
    public static let rateLimited = Self(rawValue: 5)
}

/// The code of an `error` frame, sent just before the sender closes the connection.
public struct RelayErrorCode: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    /// A malformed frame or a frame not allowed in this state or from this side.
    public static let protocolViolation = Self(rawValue: 1)
    /// A frame other than `auth` (or ping/pong) before authentication.
    public static let authRequired = Self(rawValue: 2)
    /// No `auth` within the relay's handshake deadline.
    public static let authTimeout = Self(rawValue: 3)
    /// A frame's length exceeds `Limits.maxFrameBody`.
    public static let frameTooLarge = Self(rawValue: 4)
    /// The connection sent faster than the relay allows.
    public static let rateLimited = Self(rawValue: 5)
    /// A newer connection authenticated with the same device key; this one is closed.
    /// (A device told `replaced` SHOULD NOT reconnect automatically: another copy of it is live.)
    public static let replaced = Self(rawValue: 6)
    /// The relay is shutting down for good (compare `restarting`).
    public static let shuttingDown = Self(rawValue: 7)
    /// No frame (ping included) within the idle deadline.
    public static let idleTimeout = Self(rawValue: 8)
    /// The relay failed; not the peer's fault.
    public static let internalError = Self(rawValue: 9)
    /// The protocol version of the challenge is not one the device speaks.
    public static let unsupportedVersion = Self(rawValue: 10)
}

extension WireError {
    /// The `error` code to send before closing a connection that sent a malformed frame.
    public var relayErrorCode: RelayErrorCode {
        if case .tooLarge(let field, _, _) = self, field == "frame body" { return .frameTooLarge }
        return .protocolViolation
    }
}
