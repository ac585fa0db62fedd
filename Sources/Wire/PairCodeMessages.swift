// A device of the account asks its Homebase for a pairing code (`guest pair` with no code: only
// the Homebase holds the account key). Ordinary envelopes between devices of one roster, sealed
// and signed, sent live (the asker waits connected); the answer goes to the asker only.
//
// pair-code-request (0x39): request id 16 | valid ms u32 | max tries u8
//     0 in `valid ms` or `max tries`: the Homebase's default (10 minutes, 3 tries). The Homebase
//     clamps both to its own limits (`homebase pair`: tries 1...100).
// pair-code (0x3a): request id 16 | result u8
//     | result 0 (issued): code str16 (<= 1024) | expires ms u64 | max tries u8
//     | any other result:  text str16 (<= 1024)
//     results: 1 not-in-account (the asker is not a device of the roster, e.g. a grantee),
//     2 no-account-key (this Homebase cannot add devices), 3 unavailable (its store failed).
//
// `code` is the pairing code's text (`hbpair1-…`): it holds the code's secret, which the asker
// needs to compute the confirmation; it travels only inside this sealed envelope.
import RelayWire

extension AppMessage {
    /// A sibling asks for a one-time pairing code.
    public struct PairCodeRequest: Equatable, Sendable, BodyCodable {
        public var requestID: Bytes16
        /// How long the code stays valid, in ms; 0: the Homebase's default.
        public var validMs: UInt32
        /// Wrong attempts that burn the code; 0: the Homebase's default.
        public var maxTries: UInt8
        public init(requestID: Bytes16, validMs: UInt32 = 0, maxTries: UInt8 = 0) {
            self.requestID = requestID; self.validMs = validMs; self.maxTries = maxTries
        }

        func write(to w: inout ByteWriter) throws(WireError) { w.fixed(requestID); w.u32(validMs); w.u8(maxTries) }

        static func read(_ r: inout ByteReader) throws(WireError) -> PairCodeRequest {
            PairCodeRequest(requestID: try r.fixed("request id"), validMs: try r.u32("valid ms"), maxTries: try r.u8("max tries"))
        }
    }

    /// The Homebase's answer: a code, or why not.
    public struct PairCode: Equatable, Sendable, BodyCodable {
        /// Why no code was issued. Unknown results MUST be shown as a refusal (`other`).
        public enum Refusal: Equatable, Sendable {
            /// The asker is not a device of the account's roster (a grantee, a removed device).
            case notInAccount
            /// The Homebase does not hold the account key.
            case noAccountKey
            /// The Homebase failed (its store).
            case unavailable
            case other(UInt8)

            public var code: UInt8 {
                switch self {
                case .notInAccount: 1
                case .noAccountKey: 2
                case .unavailable: 3
                case .other(let c): c
                }
            }

            /// Nil for 0 (issued).
            public init?(code: UInt8) {
                switch code {
                case 0: return nil
                case 1: self = .notInAccount
                case 2: self = .noAccountKey
                case 3: self = .unavailable
                default: self = .other(code)
                }
            }
        }

        public enum Result: Equatable, Sendable {
            /// The code's text (holds its secret), its expiry (Unix ms) and its try limit.
            case issued(code: String, expiresMs: UInt64, maxTries: UInt8)
            /// Refused; `text` is for people and never a secret.
            case refused(Refusal, text: String)
        }

        public var requestID: Bytes16
        public var result: Result
        public init(requestID: Bytes16, result: Result) { self.requestID = requestID; self.result = result }

        func write(to w: inout ByteWriter) throws(WireError) {
            w.fixed(requestID)
            switch result {
            case .issued(let code, let expiresMs, let maxTries):
                w.u8(0); try w.string(2, code, limit: Limits.maxPairingCodeText, "code"); w.u64(expiresMs); w.u8(maxTries)
            case .refused(let why, let text):
                guard why.code != 0 else { throw .invalidValue(field: "result", value: 0) }
                w.u8(why.code); try w.string(2, text, limit: Limits.maxReasonText, "text")
            }
        }

        static func read(_ r: inout ByteReader) throws(WireError) -> PairCode {
            let id: Bytes16 = try r.fixed("request id")
            guard let why = Refusal(code: try r.u8("result")) else {
                return PairCode(requestID: id, result: .issued(code: try r.string(2, limit: Limits.maxPairingCodeText, "code"),
                                                               expiresMs: try r.u64("expires ms"), maxTries: try r.u8("max tries")))
            }
            return PairCode(requestID: id, result: .refused(why, text: try r.string(2, limit: Limits.maxReasonText, "text")))
        }
    }
}

extension Limits {
    /// Longest pairing code text in a `pair-code` (UTF-8 bytes): a code with a pin and a
    /// 300-byte relay URL is under 800.
    public static let maxPairingCodeText = 1024
}

extension AppMessage.PairCode.Result {
    public var isIssued: Bool { if case .issued = self { true } else { false } }
}

// The code's text holds its secret: the struct describes itself as its message does.
extension AppMessage.PairCode: DescribedAsMessage { public var asMessage: AppMessage { .pairCode(self) } }
extension AppMessage.PairCode.Result: LogDescribed {
    public var description: String {
        switch self {
        case .issued(_, let expiresMs, let maxTries): "issued(code redacted, expires \(expiresMs), \(maxTries) tries)"
        case .refused(let why, let text): "refused(\(why.code), \(text))"
        }
    }
}
