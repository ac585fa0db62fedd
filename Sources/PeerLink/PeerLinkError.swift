// The one error type of PeerLink. Messages name sizes, limits and causes; never payloads,
// tokens or keys (payloads are sealed, but a token is a bearer secret).

/// Why a PeerLink call failed (thrown by configuration and `sendMail`, carried by `LiveOutcome.failed`).
public enum PeerLinkError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The relay URL is not `ws://host[:port][/path]` or `wss://...`; the text says which rule broke.
    case invalidURL(String)
    /// A certificate pin is not 64 hex digits (SHA-256 of the relay's DER certificate).
    case invalidPin
    /// An account proof signature is not 64 bytes.
    case invalidAccountProof
    /// `field` is `length` bytes, more than its `limit` (payload, collapse key, admission token).
    case tooLarge(field: String, length: Int, limit: Int)
    /// A mail TTL must be at least one second and fit in a u32 of seconds.
    case invalidTTL
    /// The mail outbox already holds its maximum of frames waiting for `stored`.
    case outboxFull(limit: Int)
    /// The link is not authenticated right now (live frames are never held for a reconnect).
    case linkDown
    /// The relay did not answer in time (a live frame's barrier pong never came).
    case timeout
    /// `stop()` was called; the link is finished.
    case stopped
    /// The TLS client context could not be made (the text is OpenSSL's reason).
    case tls(String)

    public var description: String {
        switch self {
        case .invalidURL(let why): "invalid relay URL: \(why)"
        case .invalidPin: "a certificate pin is 64 hex digits (SHA-256 of the DER certificate)"
        case .invalidAccountProof: "an account proof signature is 64 bytes"
        case .tooLarge(let f, let n, let l): "too large: \(f) is \(n) bytes, limit \(l)"
        case .invalidTTL: "a mail TTL is 1 s to 2^32-1 s"
        case .outboxFull(let l): "mail outbox full (limit \(l) frames)"
        case .linkDown: "the relay link is down"
        case .timeout: "the relay did not answer in time"
        case .stopped: "the relay link was stopped"
        case .tls(let r): "TLS setup failed: \(r)"
        }
    }
}
