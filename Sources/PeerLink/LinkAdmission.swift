import Signing
import RelayWire

/// What a link presents to be admitted beyond its device signature, asked for at each
/// connection so that a proof or token renewed meanwhile is the one sent (SPEC "Authentication").
public struct LinkAdmission: Sendable {
    /// The account's proof for this device at the challenge's origin (sent as `device-proof`
    /// before `auth`); nil sends none.
    public var deviceProof: @Sendable (_ origin: String, _ deviceKey: Bytes32) -> RelayFrame.DeviceProof?
    /// The admission token to put in `auth` (from an invite or a pairing code); nil sends none.
    public var token: @Sendable (_ origin: String) -> [UInt8]?
    /// Signed orders of the account (revocations, admitted tokens) sent after each `auth-ok`
    /// and on `PeerLink.sendOrders()`: the relay keeps them idempotently.
    public var orders: @Sendable (_ origin: String) -> [RelayFrame.AccountOrder]

    public init(deviceProof: @escaping @Sendable (String, Bytes32) -> RelayFrame.DeviceProof? = { _, _ in nil },
                token: @escaping @Sendable (String) -> [UInt8]? = { _ in nil },
                orders: @escaping @Sendable (String) -> [RelayFrame.AccountOrder] = { _ in [] }) {
        self.deviceProof = deviceProof; self.token = token; self.orders = orders
    }

    /// A fixed token (e.g. `homebase-relay probe --token`).
    public static func token(_ t: [UInt8]?) -> LinkAdmission {
        let held = t.map { SecretBytes($0) } // wiped when the link is released
        return LinkAdmission(token: { _ in held.map { $0.withUnsafeBytes { Array($0) } } })
    }
}

/// Signing with the account key: proofs for devices and orders (the Homebase holds the key).
public enum AccountSigning {
    /// A proof for `device` at `origin`, valid until `notAfterSeconds`.
    public static func deviceProof(_ account: SigningKey, device: Bytes32, origin: String, rosterVersion: UInt64,
                                   notAfterSeconds: UInt64) -> RelayFrame.DeviceProof? {
        guard let m = try? RelayAuth.deviceProofBinding(origin: origin, deviceKey: device, rosterVersion: rosterVersion,
                                                        notAfterSeconds: notAfterSeconds) else { return nil }
        return .init(accountKey: account.publicKey, rosterVersion: rosterVersion,
                     notAfterSeconds: notAfterSeconds, signature: Bytes64(unchecked: account.sign(m)))
    }

    /// An order for `origin`.
    public static func order(_ account: SigningKey, origin: String, kind: UInt8, subject: Bytes32, rosterVersion: UInt64 = 0,
                             notAfterSeconds: UInt64, uses: UInt16 = 0) -> RelayFrame.AccountOrder? {
        guard let m = try? RelayAuth.orderBinding(origin: origin, kind: kind, subject: subject, rosterVersion: rosterVersion,
                                                  notAfterSeconds: notAfterSeconds, uses: uses) else { return nil }
        return .init(accountKey: account.publicKey, kind: kind, subject: subject,
                     rosterVersion: rosterVersion, notAfterSeconds: notAfterSeconds, uses: uses,
                     signature: Bytes64(unchecked: account.sign(m)))
    }

    /// The order admitting `token` (the relay keeps only its SHA-256).
    public static func admitToken(_ account: SigningKey, origin: String, token: [UInt8], notAfterSeconds: UInt64,
                                  uses: UInt16) -> RelayFrame.AccountOrder? {
        order(account, origin: origin, kind: RelayFrame.AccountOrder.admitToken, subject: Bytes32(unchecked: sha256(token)),
              notAfterSeconds: notAfterSeconds, uses: uses)
    }
}
