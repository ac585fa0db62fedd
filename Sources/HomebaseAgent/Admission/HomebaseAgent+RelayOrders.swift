import Pairing
import Signing
import Wire

// The account's standing orders for its relay (SPEC "Authentication"), recomputed on each
// reload tick from what the CLI changed: open pairing codes and invites (their tokens), removed
// devices and revoked grantees (revocations). Only the holder of the account key signs them.
extension HomebaseAgent {
    func refreshRelayOrders() {
        if let v = try? store.roster()?.version { relayAdmission.setRosterVersion(v) }
        guard holdsAccountKey else { return }
        let now = RelayAdmission.nowSeconds
        let keep = RelayAdmission.roundUpToDay(now + relayAdmission.proofLifetimeSeconds)
        var specs: [RelayAdmission.Spec] = []
        for p in (try? store.pairings()) ?? [] where p.state == .open && p.expiresMs / 1000 >= Int64(now) {
            let token = AdmissionTokens.pairCode(secret: p.secret, codeID: p.codeID)
            specs.append(.init(kind: RelayFrame.AccountOrder.admitToken, subject: Bytes32(unchecked: sha256(token)),
                               notAfter: UInt64(p.expiresMs / 1000) + 1, uses: 1))
        }
        let joins = (try? sharing.joins()) ?? []
        for invite in (try? sharing.invites()) ?? [] {
            guard let secret = Secret32(invite.secret) else { continue }
            let expires = UInt64(max(0, invite.expiresMs / 1000))
            // A joined guest keeps its way in after the invite's own expiry, renewed here.
            let joined = joins.contains { $0.inviteID == invite.inviteID && ($0.state == .granted || $0.state == .pending) }
            guard joined || expires >= now else { continue }
            specs.append(.init(kind: RelayFrame.AccountOrder.admitToken,
                               subject: Bytes32(unchecked: sha256(AdmissionTokens.invite(secret: secret))),
                               notAfter: joined ? max(expires, keep) : expires, uses: UInt16(clamping: invite.maxUses)))
        }
        for j in joins where j.state == .revoked || j.state == .refused {
            specs.append(.init(kind: RelayFrame.AccountOrder.revokeDevice, subject: j.joiner.signingKey,
                               rosterVersion: .max, notAfter: keep))
        }
        for r in RevocationLog(dataDir: files.dataDir).all() {
            let until = r.removedSeconds + relayAdmission.proofLifetimeSeconds
            guard until >= now else { continue }
            specs.append(.init(kind: RelayFrame.AccountOrder.revokeDevice, subject: r.device,
                               rosterVersion: r.rosterVersion, notAfter: RelayAdmission.roundUpToDay(until)))
        }
        if relayAdmission.update(specs) { courier.link.sendOrders() }
    }
}
