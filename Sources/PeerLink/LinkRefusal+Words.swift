import RelayWire

// A refusal in words for `status` lines and logs: the SPEC's reason name, then the relay's
// own text (for people, never a secret: SPEC section 4, "Codes").
extension LinkRefusal: CustomStringConvertible {
    public var description: String {
        switch self {
        case .authRefused(let reason, let text):
            return text.isEmpty ? reason.name : "\(reason.name): \(text)"
        case .replaced: return "another connection with this device key took over"
        case .shuttingDown: return "the relay is shutting down"
        case .originMismatch(let origin): return "the relay's challenge named another origin (\(origin))"
        case .unsupportedVersion(let v): return "the relay speaks protocol version \(v), which this device does not"
        case .certificate(let why): return "certificate: \(why)"
        }
    }
}

extension AuthRefusalReason {
    /// SPEC's name of the reason; "reason N" for one this version does not know.
    var name: String {
        switch self {
        case .badSignature: "bad-signature"
        case .notAdmitted: "not-admitted"
        case .badToken: "bad-token"
        case .badAccountProof: "bad-account-proof"
        case .rateLimited: "rate-limited"
        default: "reason \(rawValue)"
        }
    }
}
