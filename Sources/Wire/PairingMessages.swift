// Pairing a new device into an account (sent as introductions: the inviter does not know the
// new device yet, and the new device knows the inviter only from the pairing code).
//
// pair-request (0x36): code id 8 | proof 32
// pair-welcome (0x37): code id 8 | roster body (as in `roster`, 0x35) | advert present bool
//                      | [advert body (as in `advert`, 0x01)] | proof 32
//                      | [relay proof: origin str16 | roster version u64 | not after s u64 | sig 64]
//                        (present when bytes follow the proof; not covered by it: the account signs it)
// pair-refused (0x38): code id 8 | reason u8 | tries left u8 | text str16 (<= 1024)
//
// The proofs are HMAC-SHA256 under the code's secret (derivations in protocol/SPEC.md).
import RelayWire

/// 8 bytes: a pairing code's id (not secret: it names the code, the secret proves it).
public struct Bytes8: FixedBytes {
    public static let count = 8
    public private(set) var bytes: [UInt8]
    public init(unchecked bytes: [UInt8]) { precondition(bytes.count == 8); self.bytes = bytes }
}

extension AppMessage {
    /// A new device asks to join with a pairing code: the code's id and a proof of its secret
    /// bound to the new device's record (which the introduction carries).
    public struct PairRequest: Equatable, Sendable, BodyCodable {
        public var codeID: Bytes8
        public var proof: Bytes32
        public init(codeID: Bytes8, proof: Bytes32) { self.codeID = codeID; self.proof = proof }

        func write(to w: inout ByteWriter) throws(WireError) { w.fixed(codeID); w.fixed(proof) }

        static func read(_ r: inout ByteReader) throws(WireError) -> PairRequest {
            PairRequest(codeID: try r.fixed("code id"), proof: try r.fixed("proof"))
        }
    }

    /// The inviter accepts: the roster that now lists the new device, the Homebase's current
    /// advert (so the new device can route to it at once), and a proof of the code's secret
    /// over both (the new device trusts the roster's account key because of this proof).
    public struct PairWelcome: Equatable, Sendable, BodyCodable {
        public var codeID: Bytes8
        public var roster: Roster
        public var advert: Advert?
        public var proof: Bytes32
        /// The account's proof for the new device at the account's relay; after `proof`, not
        /// covered by it (the roster's account key signs it). Absent: the body ends at `proof`.
        public var relayProof: RelayProof?
        public init(codeID: Bytes8, roster: Roster, advert: Advert? = nil, proof: Bytes32 = .zero, relayProof: RelayProof? = nil) {
            self.codeID = codeID; self.roster = roster; self.advert = advert; self.proof = proof; self.relayProof = relayProof
        }

        /// The body without its final proof: what the proof covers.
        public func unprovenBytes() throws(WireError) -> [UInt8] {
            var w = ByteWriter()
            try writeUnproven(to: &w)
            return w.bytes
        }

        private func writeUnproven(to w: inout ByteWriter) throws(WireError) {
            w.fixed(codeID); try roster.write(to: &w)
            w.bool(advert != nil)
            if let advert { try advert.write(to: &w) }
        }

        func write(to w: inout ByteWriter) throws(WireError) {
            try writeUnproven(to: &w); w.fixed(proof)
            if let relayProof { try relayProof.write(to: &w) }
        }

        static func read(_ r: inout ByteReader) throws(WireError) -> PairWelcome {
            let id: Bytes8 = try r.fixed("code id")
            let roster = try Roster.read(&r)
            let advert = try r.bool("advert present") ? try Advert.read(&r) : nil
            let proof: Bytes32 = try r.fixed("proof")
            let relayProof = r.remaining > 0 ? try RelayProof.read(&r) : nil
            return PairWelcome(codeID: id, roster: roster, advert: advert, proof: proof, relayProof: relayProof)
        }
    }

    /// A `device-proof` as the account hands it to a device (SPEC "Authentication"): the relay's
    /// canonical origin it is for, and the fields the device sends with the account key.
    ///
    ///     relay origin str16 (<= 512) | roster version u64 | not after s u64 | signature 64
    public struct RelayProof: Equatable, Sendable {
        public var origin: String
        public var rosterVersion: UInt64
        public var notAfterSeconds: UInt64
        public var signature: Bytes64
        public init(origin: String, rosterVersion: UInt64, notAfterSeconds: UInt64, signature: Bytes64) {
            self.origin = origin; self.rosterVersion = rosterVersion; self.notAfterSeconds = notAfterSeconds; self.signature = signature
        }

        func write(to w: inout ByteWriter) throws(WireError) {
            try w.string(2, origin, limit: Limits.maxOrigin, "relay origin")
            w.u64(rosterVersion); w.u64(notAfterSeconds); w.fixed(signature)
        }

        static func read(_ r: inout ByteReader) throws(WireError) -> RelayProof {
            RelayProof(origin: try r.string(2, limit: Limits.maxOrigin, "relay origin"), rosterVersion: try r.u64("roster version"),
                       notAfterSeconds: try r.u64("not after"), signature: try r.fixed("relay proof signature"))
        }

        /// The bytes above alone (a device keeps them on file).
        public func encode() throws(WireError) -> [UInt8] {
            var w = ByteWriter()
            try write(to: &w)
            return w.bytes
        }

        public static func decode(_ bytes: [UInt8]) throws(WireError) -> RelayProof {
            var r = ByteReader(bytes[...])
            let p = try read(&r)
            try r.finish()
            return p
        }

        /// The frame a device sends before `auth`, for the account `accountKey`.
        public func frame(accountKey: Bytes32) -> RelayFrame.DeviceProof {
            .init(accountKey: accountKey, rosterVersion: rosterVersion, notAfterSeconds: notAfterSeconds, signature: signature)
        }
    }

    /// The inviter refuses a pairing request, and why.
    public struct PairRefused: Equatable, Sendable, BodyCodable {
        /// Why. Unknown reasons MUST be shown as a refusal (`other`).
        public enum Reason: Equatable, Sendable {
            /// No code with this id (never issued, or removed).
            case unknownCode
            /// The code's validity ended.
            case expired
            /// The code already paired a device.
            case used
            /// The proof does not match the code's secret; `triesLeft` more attempts.
            case wrongSecret
            /// Too many wrong attempts: the code is burnt.
            case burnt
            /// The inviter cannot add devices (it does not hold the account key) or failed.
            case unavailable
            case other(UInt8)

            public var code: UInt8 {
                switch self {
                case .unknownCode: 1
                case .expired: 2
                case .used: 3
                case .wrongSecret: 4
                case .burnt: 5
                case .unavailable: 6
                case .other(let c): c
                }
            }

            public init(code: UInt8) {
                switch code {
                case 1: self = .unknownCode
                case 2: self = .expired
                case 3: self = .used
                case 4: self = .wrongSecret
                case 5: self = .burnt
                case 6: self = .unavailable
                default: self = .other(code)
                }
            }
        }

        public var codeID: Bytes8
        public var reason: Reason
        public var triesLeft: UInt8
        /// For people; never a secret.
        public var text: String
        public init(codeID: Bytes8, reason: Reason, triesLeft: UInt8 = 0, text: String = "") {
            self.codeID = codeID; self.reason = reason; self.triesLeft = triesLeft; self.text = text
        }

        func write(to w: inout ByteWriter) throws(WireError) {
            w.fixed(codeID); w.u8(reason.code); w.u8(triesLeft)
            try w.string(2, text, limit: Limits.maxReasonText, "text")
        }

        static func read(_ r: inout ByteReader) throws(WireError) -> PairRefused {
            PairRefused(codeID: try r.fixed("code id"), reason: Reason(code: try r.u8("reason")),
                        triesLeft: try r.u8("tries left"), text: try r.string(2, limit: Limits.maxReasonText, "text"))
        }
    }
}
