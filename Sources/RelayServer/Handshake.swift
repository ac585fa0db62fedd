import Basics
import Signing
import Transport
import RelayWire

/// The challenge and its answer: a fresh nonce per connection, the device's signature over the
/// transcript built from OUR origin and OUR nonce (never from the frame), then admission.
extension Hub {
    func sendChallenge(_ s: Session) {
        let nonce = SecretBytes.random(count: Bytes32.count).withUnsafeBytes { Bytes32(unchecked: Array($0)) }
        let timeout = handshakeTimeout(for: s)
        let deadline = loop.schedule(after: timeout) { [weak self, weak s] in
            guard let self, let s, case .awaitingAuth = s.state else { return }
            self.metrics.authFailed(.timeout)
            self.fail(s, .authTimeout, "no auth within \(timeout.settingText)")
        }
        s.state = .awaitingAuth(nonce: nonce, deadline: deadline)
        s.control(.challenge(.init(nonce: nonce, origin: origin)))
    }

    func authenticate(_ s: Session, _ a: RelayFrame.Auth, nonce: Bytes32) {
        guard verify(a.signature, by: a.deviceKey, over: try? RelayAuth.transcript(origin: origin, challenge: nonce, deviceKey: a.deviceKey)) else {
            refuse(s, .badSignature, .badSignature, "the signature does not verify over this connection's challenge and origin \(origin)")
            return
        }
        var accountVerified = false
        if let proof = a.account {
            guard verify(proof.signature, by: proof.accountKey, over: RelayAuth.accountBinding(deviceKey: a.deviceKey)) else {
                refuse(s, .badAccountProof, .badAccountProof, "the account signature does not verify over this device key")
                return
            }
            accountVerified = true
        }
        let proof = s.pendingProof
        s.pendingProof = nil
        if let proof, !verifyDeviceProof(proof, device: a.deviceKey) {
            refuse(s, .badAccountProof, .badAccountProof, "the device proof does not verify over this device key and origin \(canonicalOrigin)")
            return
        }
        switch admission.check(a, accountVerified: accountVerified, proof: proof, nowSeconds: UInt64(wallClockMs() / 1000)) {
        case .admit(let account):
            let owner = account ?? (accountVerified ? a.account?.accountKey : nil)
            if let owner, accountFull(owner, device: a.deviceKey) {
                refuse(s, .notAdmitted, .accountConnections,
                       "this account has \(config.limits.accountMaxConnections) connections here (account-max-connections)")
                return
            }
            s.admittedBy = account
            s.proofVersion = account != nil && proof?.accountKey == account ? proof?.rosterVersion : nil
            if let c = cluster { clusterJoin(c, s, key: a.deviceKey, account: owner) } else { register(s, key: a.deviceKey, account: owner) }
        case .refuse(let reason, let text):
            refuse(s, reason, reason == .badToken ? .badToken : .notAdmitted, text)
        }
    }

    private func verify(_ sig: Bytes64, by key: Bytes32, over message: [UInt8]?) -> Bool {
        guard let message else { return false }
        return key.isValidSignature(sig.bytes, for: message)
    }

    /// `auth-refused` with a reason, then close: only this connection, counted.
    /// True when `account` holds its limit of connections and `device` would add one (a device
    /// replacing its own older connection of the same account adds none).
    private func accountFull(_ account: Bytes32, device: Bytes32) -> Bool {
        let held = perAccount[account] ?? 0
        guard held >= config.limits.accountMaxConnections else { return false }
        if let old = byKey[device], case .authenticated(let peer) = old.state, peer.account == account { return false }
        return true
    }

    private func refuse(_ s: Session, _ reason: AuthRefusalReason, _ metric: Metrics.AuthFailure, _ text: String) {
        metrics.authFailed(metric)
        log.info("auth refused peer=\(s.peer) reason=\(metric.rawValue)")
        s.control(.authRefused(.init(reason: reason, text: text)))
        s.state = .closing
        s.ws.close(code: .policyViolation, reason: "auth refused")
    }
}
