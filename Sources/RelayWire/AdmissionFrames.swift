// The account's word at a relay, in two frames a relay before this version skips (unknown types):
//
//   0x05  device-proof   device -> relay, before auth
//         account key 32 | roster version u64 | not after s u64 | signature 64
//   0x18  account-order  device -> relay, after auth-ok
//         account key 32 | kind u8 | subject 32 | roster version u64 | not after s u64 | uses u16
//         | signature 64
//
// Signatures are by the account key over `RelayAuth.deviceProofBinding` / `orderBinding`, both
// bound to the relay's origin: a proof or order made for one relay opens nothing at another.

extension RelayFrame {
    /// The account vouches for the device of the `auth` that follows, at this relay, until
    /// `notAfterSeconds` (Unix time), as of roster `rosterVersion`.
    public struct DeviceProof: Equatable, Sendable {
        public var accountKey: Bytes32
        public var rosterVersion: UInt64
        public var notAfterSeconds: UInt64
        public var signature: Bytes64
        public init(accountKey: Bytes32, rosterVersion: UInt64, notAfterSeconds: UInt64, signature: Bytes64) {
            self.accountKey = accountKey; self.rosterVersion = rosterVersion
            self.notAfterSeconds = notAfterSeconds; self.signature = signature
        }
    }

    /// A signed instruction from an account to the relay (any authenticated connection may carry it).
    public struct AccountOrder: Equatable, Sendable {
        /// `revokeDevice`: subject = a device key removed at roster `rosterVersion`; proofs of
        /// that device with an older or equal roster version are refused. `admitToken`: subject =
        /// SHA-256 of an admission token devices may present in `auth` until `notAfterSeconds`,
        /// by at most `uses` distinct devices (0 = any number). Other kinds are ignored.
        public static let revokeDevice: UInt8 = 1, admitToken: UInt8 = 2

        public var accountKey: Bytes32
        public var kind: UInt8
        public var subject: Bytes32
        public var rosterVersion: UInt64
        public var notAfterSeconds: UInt64
        public var uses: UInt16
        public var signature: Bytes64
        public init(accountKey: Bytes32, kind: UInt8, subject: Bytes32, rosterVersion: UInt64 = 0,
                    notAfterSeconds: UInt64, uses: UInt16 = 0, signature: Bytes64) {
            self.accountKey = accountKey; self.kind = kind; self.subject = subject; self.rosterVersion = rosterVersion
            self.notAfterSeconds = notAfterSeconds; self.uses = uses; self.signature = signature
        }
    }

    static func decodeDeviceProof(_ r: inout ByteReader) throws(WireError) -> DeviceProof {
        DeviceProof(accountKey: try r.fixed("account key"), rosterVersion: try r.u64("roster version"),
                    notAfterSeconds: try r.u64("not after"), signature: try r.fixed("account signature"))
    }

    static func decodeAccountOrder(_ r: inout ByteReader) throws(WireError) -> AccountOrder {
        AccountOrder(accountKey: try r.fixed("account key"), kind: try r.u8("order kind"), subject: try r.fixed("subject"),
                     rosterVersion: try r.u64("roster version"), notAfterSeconds: try r.u64("not after"),
                     uses: try r.u16("uses"), signature: try r.fixed("account signature"))
    }

    static func encode(_ p: DeviceProof, into w: inout ByteWriter) {
        w.fixed(p.accountKey); w.u64(p.rosterVersion); w.u64(p.notAfterSeconds); w.fixed(p.signature)
    }

    static func encode(_ o: AccountOrder, into w: inout ByteWriter) {
        w.fixed(o.accountKey); w.u8(o.kind); w.fixed(o.subject); w.u64(o.rosterVersion)
        w.u64(o.notAfterSeconds); w.u16(o.uses); w.fixed(o.signature)
    }
}

extension RelayAuth {
    static let deviceProofDomain = Array("homebase-device-proof-v1".utf8)
    static let orderDomain = Array("homebase-account-order-v1".utf8)

    /// What the account key signs for `device-proof`:
    ///
    ///     "homebase-device-proof-v1" || 0x00 || u16 len(origin) || origin || device key (32)
    ///     || roster version u64 || not after s u64
    public static func deviceProofBinding(origin: String, deviceKey: Bytes32, rosterVersion: UInt64,
                                          notAfterSeconds: UInt64) throws(WireError) -> [UInt8] {
        var w = ByteWriter(domain: deviceProofDomain)
        try w.string(2, origin, limit: Limits.maxOrigin, "origin")
        w.fixed(deviceKey); w.u64(rosterVersion); w.u64(notAfterSeconds)
        return w.bytes
    }

    /// What the account key signs for `account-order`:
    ///
    ///     "homebase-account-order-v1" || 0x00 || u16 len(origin) || origin || kind u8 || subject (32)
    ///     || roster version u64 || not after s u64 || uses u16
    public static func orderBinding(origin: String, kind: UInt8, subject: Bytes32, rosterVersion: UInt64,
                                    notAfterSeconds: UInt64, uses: UInt16) throws(WireError) -> [UInt8] {
        var w = ByteWriter(domain: orderDomain)
        try w.string(2, origin, limit: Limits.maxOrigin, "origin")
        w.u8(kind); w.fixed(subject); w.u64(rosterVersion); w.u64(notAfterSeconds); w.u16(uses)
        return w.bytes
    }
}
