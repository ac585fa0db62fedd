// Sharing a Homebase with another account, and choosing models.
//
// invite       (0x30): relay url str16 | host signing key 32 | host hpke key 32 | invite secret 32
//                      | model count u16 | model tags str16 | rate per minute u32 | expires ms u64
//                      | token present u8 (0 or 1) | [admission token bytes16 (<= 1024)]
//                      | [alternates: list<str16> (<= 8 URLs of <= 512 bytes), present when bytes follow]
// join         (0x31): secret proof 32 | device record bytes32 | account name str16 (1...64 bytes,
//                      no control characters: `Printable`)
// grant        (0x32): grant id 16 | model count u16 | model tags str16 | rate per minute u32 | expires ms u64
// revoke       (0x33): grant id 16 | reason str16
// grant-terms  (0x3d): grant id 16 | flags u8 (bit 0 tools; others reserved: 0 on send, ignored
//                      on receipt). Sent with every grant; a receiver that does not know 0x3d
//                      skips it and never sends tools (the grant then reads as not allowing them).
// model-choice (0x34): model id str16 | options u8 (bit 0 vision; others reserved: 0 on send,
//                      ignored on receipt) | choice sequence u64 | origin device key 32
import RelayWire

extension AppMessage {
    /// An invitation to use a Homebase, passed out of band (a link, a QR code).
    /// Holds a secret: never log it (its description redacts it).
    public struct Invite: Equatable, Sendable, BodyCodable {
        public var relayURL: String
        public var hostSigningKey: Bytes32
        public var hostHPKEKey: Bytes32
        public var inviteSecret: Secret32
        public var models: [String]
        public var ratePerMinute: UInt32
        public var expiresMs: UInt64
        public var admissionToken: [UInt8]?
        /// Other nodes of the relay's cluster (docs/CLUSTER.md "Devices"). Written only when
        /// there are some, so an invite without them is the old encoding byte for byte.
        public var alternates: [String]
        public init(relayURL: String, hostSigningKey: Bytes32, hostHPKEKey: Bytes32, inviteSecret: Secret32,
                    models: [String], ratePerMinute: UInt32, expiresMs: UInt64, admissionToken: [UInt8]? = nil,
                    alternates: [String] = []) {
            self.relayURL = relayURL; self.hostSigningKey = hostSigningKey; self.hostHPKEKey = hostHPKEKey
            self.inviteSecret = inviteSecret; self.models = models; self.ratePerMinute = ratePerMinute
            self.expiresMs = expiresMs; self.admissionToken = admissionToken; self.alternates = alternates
        }

        func write(to w: inout ByteWriter) throws(WireError) {
            try w.string(2, relayURL, "relay url")
            w.fixed(hostSigningKey); w.fixed(hostHPKEKey); w.fixed(inviteSecret)
            try w.stringList(models, "models")
            w.u32(ratePerMinute); w.u64(expiresMs)
            w.bool(admissionToken != nil)
            if let t = admissionToken { try w.prefixed(2, t, limit: Limits.maxAdmissionToken, "admission token") }
            if !alternates.isEmpty { try w.alternates(alternates) }
        }

        static func read(_ r: inout ByteReader) throws(WireError) -> Invite {
            var invite = Invite(relayURL: try r.string(2, "relay url"), hostSigningKey: try r.fixed("host signing key"),
                                hostHPKEKey: try r.fixed("host hpke key"), inviteSecret: try r.fixed("invite secret"),
                                models: try r.stringList("models"), ratePerMinute: try r.u32("rate"),
                                expiresMs: try r.u64("expires"))
            if try r.bool("token present") {
                invite.admissionToken = try r.prefixed(2, limit: Limits.maxAdmissionToken, "admission token")
            }
            if r.remaining > 0 {
                // 1 to 8: an empty list is no field at all, so it reads as what it is, extra bytes.
                let rest = r.remaining
                invite.alternates = try r.alternates()
                guard !invite.alternates.isEmpty else { throw .trailingBytes(count: rest) }
            }
            return invite
        }
    }

    /// A guest accepts an invite.
    public struct Join: Equatable, Sendable, BodyCodable {
        /// Proof of the invite secret (computed by the caller, e.g. a MAC; never the secret itself).
        public var secretProof: Bytes32
        /// The guest's signed device record, opaque to Wire.
        public var deviceRecord: [UInt8]
        public var accountName: String
        public init(secretProof: Bytes32, deviceRecord: [UInt8], accountName: String) {
            self.secretProof = secretProof; self.deviceRecord = deviceRecord; self.accountName = accountName
        }

        func write(to w: inout ByteWriter) throws(WireError) {
            w.fixed(secretProof); try w.prefixed(4, deviceRecord, limit: .max, "device record")
            try w.name(accountName, "account name")
        }

        static func read(_ r: inout ByteReader) throws(WireError) -> Join {
            Join(secretProof: try r.fixed("secret proof"), deviceRecord: try r.prefixed(4, limit: .max, "device record"),
                 accountName: try r.name("account name"))
        }
    }

    /// The host grants an account use of models.
    public struct Grant: Equatable, Sendable, BodyCodable {
        public var grantID: Bytes16
        public var models: [String]
        public var ratePerMinute: UInt32
        public var expiresMs: UInt64
        public init(grantID: Bytes16, models: [String], ratePerMinute: UInt32, expiresMs: UInt64) {
            self.grantID = grantID; self.models = models; self.ratePerMinute = ratePerMinute; self.expiresMs = expiresMs
        }

        func write(to w: inout ByteWriter) throws(WireError) {
            w.fixed(grantID); try w.stringList(models, "models"); w.u32(ratePerMinute); w.u64(expiresMs)
        }

        static func read(_ r: inout ByteReader) throws(WireError) -> Grant {
            Grant(grantID: try r.fixed("grant id"), models: try r.stringList("models"),
                  ratePerMinute: try r.u32("rate"), expiresMs: try r.u64("expires"))
        }
    }

    /// What a grant allows beyond chat, told by the host with the grant (a new type rather than a
    /// field appended to `grant`: SPEC section 4 adds fields only that way). Without one, a grant
    /// allows no tools.
    public struct GrantTerms: Equatable, Sendable, BodyCodable {
        public var grantID: Bytes16
        /// The grantee may send requests that carry tools (`homebase share --tools`).
        public var tools: Bool
        public init(grantID: Bytes16, tools: Bool) { self.grantID = grantID; self.tools = tools }

        func write(to w: inout ByteWriter) throws(WireError) { w.fixed(grantID); w.u8(tools ? 1 : 0) }

        static func read(_ r: inout ByteReader) throws(WireError) -> GrantTerms {
            GrantTerms(grantID: try r.fixed("grant id"), tools: try r.u8("grant flags") & 1 != 0)
        }
    }

    /// The host withdraws a grant.
    public struct Revoke: Equatable, Sendable, BodyCodable {
        public var grantID: Bytes16
        public var reason: String
        public init(grantID: Bytes16, reason: String) { self.grantID = grantID; self.reason = reason }

        func write(to w: inout ByteWriter) throws(WireError) { w.fixed(grantID); try w.string(2, reason, "reason") }

        static func read(_ r: inout ByteReader) throws(WireError) -> Revoke {
            Revoke(grantID: try r.fixed("grant id"), reason: try r.string(2, "reason"))
        }
    }

    /// A device of the account chose a model; the highest sequence wins across devices.
    public struct ModelChoice: Equatable, Sendable, BodyCodable {
        public var modelID: String
        public var vision: Bool
        public var sequence: UInt64
        public var originDevice: Bytes32
        public init(modelID: String, vision: Bool, sequence: UInt64, originDevice: Bytes32) {
            self.modelID = modelID; self.vision = vision; self.sequence = sequence; self.originDevice = originDevice
        }

        func write(to w: inout ByteWriter) throws(WireError) {
            try w.string(2, modelID, "model id"); w.u8(vision ? 1 : 0); w.u64(sequence); w.fixed(originDevice)
        }

        static func read(_ r: inout ByteReader) throws(WireError) -> ModelChoice {
            ModelChoice(modelID: try r.string(2, "model id"), vision: try r.u8("choice options") & 1 != 0,
                        sequence: try r.u64("sequence"), originDevice: try r.fixed("origin device"))
        }
    }
}

extension ByteReader {
    /// An invite's alternates: at most `Limits.maxAlternates` URLs, each at most `maxAlternateURL` bytes.
    mutating func alternates() throws(WireError) -> [String] {
        let n = try count(minItemSize: 2, "alternates")
        guard n <= Limits.maxAlternates else { throw .tooLarge(field: "alternates", length: n, limit: Limits.maxAlternates) }
        var out: [String] = []
        for _ in 0..<n { out.append(try string(2, limit: Limits.maxAlternateURL, "alternate")) }
        return out
    }
}

extension ByteWriter {
    mutating func alternates(_ list: [String]) throws(WireError) {
        guard list.count <= Limits.maxAlternates else {
            throw .tooLarge(field: "alternates", length: list.count, limit: Limits.maxAlternates)
        }
        try count(list.count, "alternates")
        for s in list { try string(2, s, limit: Limits.maxAlternateURL, "alternate") }
    }
}
