/// Every failure the Transport module reports. Messages name the operation and the cause,
/// never payload bytes, header values or key material.
public enum TransportError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A system call failed; `errno` is the C error number.
    case system(call: String, errno: Int32)
    /// A host or address could not be parsed or resolved.
    case invalidAddress(String)
    /// A non-blocking connect did not complete within its timeout.
    case connectTimeout
    /// TLS failed (handshake, certificate, configuration); the text is OpenSSL's reason.
    case tls(String)
    /// The peer's certificate did not match the pinned SHA-256 fingerprint.
    case certificatePinMismatch
    /// The peer spoke HTTP we refuse, or answered an upgrade with something other than 101.
    case http(status: Int)
    /// The WebSocket opening handshake was invalid (the text says which rule broke).
    case handshake(String)
    /// No complete request head (or TLS handshake) arrived before the header deadline.
    case headerTimeout
    /// Nothing was read for longer than the idle timeout.
    case idleTimeout
    /// Queued output made no progress for longer than the write timeout.
    case writeTimeout
    /// The send queue passed its hard limit (a receiver far too slow).
    case sendQueueFull
    /// The peer closed the TCP connection.
    case peerClosed
    /// The connection or the loop was closed locally.
    case closed

    public var description: String {
        switch self {
        case .system(let call, let e): return "\(call) failed: \(String(cString: strerror(e))) (errno \(e))"
        case .invalidAddress(let a): return "invalid address: \(a)"
        case .connectTimeout: return "connect timed out"
        case .tls(let r): return "TLS error: \(r)"
        case .certificatePinMismatch: return "peer certificate does not match the pinned fingerprint"
        case .http(let s): return "HTTP status \(s)"
        case .handshake(let r): return "WebSocket handshake failed: \(r)"
        case .headerTimeout: return "request head not received before the deadline"
        case .idleTimeout: return "connection idle for too long"
        case .writeTimeout: return "peer did not read queued data before the write timeout"
        case .sendQueueFull: return "send queue over its hard limit"
        case .peerClosed: return "peer closed the connection"
        case .closed: return "closed locally"
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
