import Basics
import Signing
import RelayWire

/// Account proofs and orders (SPEC "Authentication"): signatures are checked over the relay's
/// canonical origin, the form agents sign for (`scheme://host:port`, lower case, port written).
extension Hub {
    var canonicalOrigin: String { Self.canonical(origin) }

    static func canonical(_ origin: String) -> String {
        let lower = origin.lowercased()
        let secure = lower.hasPrefix("wss://")
        let authority = lower.dropFirst(secure ? 6 : 5)
        let hasPort = authority.hasPrefix("[") ? authority.contains("]:") : authority.contains(":")
        return hasPort ? lower : lower + (secure ? ":443" : ":80")
    }

    func verifyDeviceProof(_ p: RelayFrame.DeviceProof, device: Bytes32) -> Bool {
        guard let m = try? RelayAuth.deviceProofBinding(origin: canonicalOrigin, deviceKey: device, rosterVersion: p.rosterVersion,
                                                        notAfterSeconds: p.notAfterSeconds) else { return false }
        return p.accountKey.isValidSignature(p.signature.bytes, for: m)
    }

    /// An order counts when an allowed account signed it for this relay.
    func verifyOrder(_ o: RelayFrame.AccountOrder) -> Bool {
        guard admission.isAllowedAccount(o.accountKey),
              let m = try? RelayAuth.orderBinding(origin: canonicalOrigin, kind: o.kind, subject: o.subject, rosterVersion: o.rosterVersion,
                                                  notAfterSeconds: o.notAfterSeconds, uses: o.uses) else { return false }
        return o.accountKey.isValidSignature(o.signature.bytes, for: m)
    }

    /// Replays the ledger once the origin is known (the orders are signed over it).
    func loadAdmissionLedger() {
        admission.ledger.load(nowSeconds: UInt64(wallClockMs() / 1000), maxTokens: admission.maxTokensPerAccount) { verifyOrder($0) }
    }

    /// An `account-order` from any authenticated connection; one that does not verify is ignored
    /// (counted): the sender may be an old agent or a stranger, neither changes anything.
    func order(_ o: RelayFrame.AccountOrder, from s: Session) {
        guard verifyOrder(o) else {
            log.info("account order ignored from \(s.name): not signed by an allowed account for \(canonicalOrigin)")
            return
        }
        guard admission.ledger.apply(o, maxTokens: admission.maxTokensPerAccount) else { return }
        log.info("account order kind=\(o.kind) account=\(shortKey(o.accountKey)) subject=\(shortKey(o.subject))")
        // A revoked device admitted on that account's word is cut off now, not at its next connect.
        if o.kind == RelayFrame.AccountOrder.revokeDevice, let target = byKey[o.subject], target.admittedBy == o.accountKey,
           admission.ledger.isRevoked(account: o.accountKey, device: o.subject, rosterVersion: target.proofVersion ?? 0) {
            fail(target, .protocolViolation, "this device was removed from its account")
        }
    }
}
