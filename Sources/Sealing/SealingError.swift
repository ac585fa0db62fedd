import Signing

/// Everything that can go wrong in this module. Descriptions never carry key material, plaintext
/// or the reason an open failed (that detail would help an attacker and nobody else).
public enum SealingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Authentication failed, or the input was malformed, addressed to someone else, from a
    /// different sender or of an unknown version. Deliberately one case for all of them.
    case openFailed
    /// The message id was seen before, or its timestamp is outside the replay window.
    case replayed
    /// A stream chunk arrived after a later chunk had already arrived.
    case reordered
    /// A stream chunk that was already delivered arrived again.
    case duplicate
    /// A stream chunk arrived with chunks missing before it (a gap).
    case dropped
    /// A stream ended before its final chunk.
    case truncated
    /// A stream chunk arrived (or was sealed) after the final one.
    case afterFinal
    /// A key had the wrong length, or a Diffie-Hellman result was all zero (a small-order key).
    case invalidKey
    /// The pre-shared key inputs break RFC 9180's rules for the mode (section 5.1).
    case invalidPSK
    /// The sequence number or chunk counter would wrap: no more messages on this context.
    case messageLimitReached
    /// An HPKE export longer than 255 * 32 bytes was asked for.
    case exportTooLong
    /// A body or chunk exceeds the documented limit.
    case tooLarge
    /// A device record is malformed, badly signed or does not match its keys.
    case invalidRecord
    /// Reading or writing a key file failed.
    case keyFile(SigningError)

    public var description: String {
        switch self {
        case .openFailed: return "sealed message could not be opened"
        case .replayed: return "message was replayed or is outside the replay window"
        case .reordered: return "stream chunk arrived out of order"
        case .duplicate: return "stream chunk arrived twice"
        case .dropped: return "stream chunk missing (gap in counters)"
        case .truncated: return "stream ended before its final chunk"
        case .afterFinal: return "stream chunk after the final chunk"
        case .invalidKey: return "invalid public or private key"
        case .invalidPSK: return "pre-shared key inputs do not match the HPKE mode"
        case .messageLimitReached: return "message limit of this encryption context reached"
        case .exportTooLong: return "HPKE export length above 8160 bytes"
        case .tooLarge: return "message or chunk too large"
        case .invalidRecord: return "invalid device record"
        case let .keyFile(error): return error.description
        }
    }
}
