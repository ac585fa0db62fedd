import Foundation
import Pairing
import PeerLink
import Signing
import Synchronization
import Wire

/// The Homebase's word at its relay (SPEC "Authentication"): its own `device-proof` (the holder
/// of the account key signs one per connection; a Homebase that joined presents the one its
/// pairing brought), and the account's standing orders: admit the tokens of open pairing codes
/// and invites, revoke removed devices and revoked grantees. The orders are recomputed on each
/// reload tick and sent when they change, and again after each `auth-ok`.
package final class RelayAdmission: Sendable {
    /// An order before it is signed for a relay's origin.
    struct Spec: Equatable, Sendable {
        var kind: UInt8
        var subject: Bytes32
        var rosterVersion: UInt64 = 0
        var notAfter: UInt64
        var uses: UInt16 = 0
    }

    let accountKey: SigningKey?
    let storedProof: RelayProofFile.Stored?
    let proofLifetimeSeconds: UInt64
    private let specs = Mutex<[Spec]>([])
    private let rosterVersion = Mutex<UInt64>(0)

    init(accountKey: SigningKey?, storedProof: RelayProofFile.Stored?, proofLifetime: Duration) {
        self.accountKey = accountKey; self.storedProof = storedProof
        proofLifetimeSeconds = UInt64(max(1, proofLifetime.components.seconds))
    }

    /// What the link presents; read at each connection.
    var linkAdmission: LinkAdmission {
        LinkAdmission(deviceProof: { [self] origin, device in proof(origin: origin, device: device) },
                      orders: { [self] origin in orders(origin: origin) })
    }

    func setRosterVersion(_ v: UInt64) { rosterVersion.withLock { $0 = v } }

    /// A fresh proof for `device` at `origin` (nil without the account key).
    func relayProof(origin: String, device: Bytes32, nowSeconds: UInt64) -> AppMessage.RelayProof? {
        guard let accountKey else { return nil }
        let notAfter = Self.roundUpToDay(nowSeconds + proofLifetimeSeconds)
        guard let p = AccountSigning.deviceProof(accountKey, device: device, origin: origin,
                                                 rosterVersion: rosterVersion.withLock { $0 }, notAfterSeconds: notAfter) else { return nil }
        return AppMessage.RelayProof(origin: origin, rosterVersion: p.rosterVersion, notAfterSeconds: p.notAfterSeconds,
                                     signature: p.signature)
    }

    private func proof(origin: String, device: Bytes32) -> RelayFrame.DeviceProof? {
        if let accountKey {
            return relayProof(origin: origin, device: device, nowSeconds: Self.nowSeconds)?
                .frame(accountKey: accountKey.publicKey)
        }
        guard let s = storedProof, s.proof.origin == origin else { return nil }
        return s.proof.frame(accountKey: s.accountKey)
    }

    private func orders(origin: String) -> [RelayFrame.AccountOrder] {
        guard let accountKey else { return [] }
        return specs.withLock { $0 }.compactMap {
            AccountSigning.order(accountKey, origin: origin, kind: $0.kind, subject: $0.subject, rosterVersion: $0.rosterVersion,
                                 notAfterSeconds: $0.notAfter, uses: $0.uses)
        }
    }

    /// Replaces the standing orders; true when they changed (the caller then sends them).
    func update(_ new: [Spec]) -> Bool {
        specs.withLock { old in
            guard old != new else { return false }
            old = new
            return true
        }
    }

    package static var nowSeconds: UInt64 { UInt64(max(0, Date().timeIntervalSince1970)) }

    /// Whole days: an order renewed on every tick would otherwise change every second.
    static func roundUpToDay(_ s: UInt64) -> UInt64 { (s / 86_400 + 1) * 86_400 }
}
