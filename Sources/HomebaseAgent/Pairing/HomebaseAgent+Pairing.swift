import Courier
import Pairing
import Sealing
import Signing
import Wire

// The running agent answers pairing requests: it holds the device key the code pinned, so a
// request can only reach (and be opened by) it. A code is checked in this order: known, not
// expired (whatever its state: a used code past its validity serves nobody), not burnt, not
// retired (its device was removed), not used (unless by the same device again: its welcome was
// lost), proof of the secret (a wrong proof counts a try; the last try burns the code). An open
// code adds the device to the roster; a used code never adds one: its welcome is sent again
// only while its device is in the roster with the record it paired. The welcome goes back as
// an introduction (the new device does not know this Homebase's record yet).
extension HomebaseAgent {
    func pairRequest(_ d: Delivery, _ r: AppMessage.PairRequest) {
        let joiner = d.sender
        whileAlive { agent in
            let answer = agent.decidePairing(joiner, r)
            await agent.sendIntroduction(answer, to: joiner)
            if case .pairWelcome = answer {
                do { try agent.reload() } catch { agent.log("reload: \(error)") }
                agent.publishRoster()
            }
        }
    }

    /// The welcome or refusal for one request (store effects included).
    func decidePairing(_ joiner: DeviceRecord, _ r: AppMessage.PairRequest) -> AppMessage {
        let who = "\(joiner.name) \(joiner.signingKey.short)"
        func refuse(_ reason: AppMessage.PairRefused.Reason, _ text: String, triesLeft: Int = 0) -> AppMessage {
            log("pairing refused for \(who): \(text)")
            count("pair-refused")
            return .pairRefused(.init(codeID: r.codeID, reason: reason, triesLeft: UInt8(clamping: triesLeft), text: text))
        }
        let now = nowMs()
        let code: PairingRecord
        do {
            guard let found = try store.pairing(r.codeID) else { return refuse(.unknownCode, "unknown code") }
            code = found
        } catch {
            return refuse(.unavailable, "the Homebase's store failed")
        }
        let me = identity.signingKey.publicKey
        let expected = PairingProofs.request(secret: code.secret, codeID: code.codeID, inviter: me, joiner: joiner)
        let proven = PairingProofs.equal(expected, r.proof)
        if now >= code.expiresMs { return refuse(.expired, "code expired") }
        switch code.state {
        case .burnt: return refuse(.burnt, "code burnt after too many wrong attempts")
        case .retired: return refuse(.used, "code already used (by a device removed since: it needs a new code)")
        case .used where !(proven && code.deviceKey == joiner.signingKey): return refuse(.used, "code already used")
        case .used, .open: break
        }
        guard proven else {
            let left = (try? store.pairingWrongTry(code.codeID)) ?? 0
            guard left == 0 else { return refuse(.wrongSecret, "wrong code", triesLeft: left) }
            tellAsker(code.codeID, .burnt)
            return refuse(.burnt, "wrong code; code burnt")
        }
        guard joiner.signingKey != me else { return refuse(.unavailable, "that is this Homebase's own key") }
        do {
            let roster: AppMessage.Roster
            if code.state == .open {
                roster = try store.addDevice(joiner, accountKey: try files.loadAccountKey(), nowMs: now)
            } else if let current = try store.roster(), try store.devices().contains(where: { $0.record == joiner }) {
                roster = current  // the same device again: its welcome was lost
            } else {
                return refuse(.used, "code already used (its device is not in the roster as it paired: it needs a new code)")
            }
            let catalog = state.withLock { $0.offer.catalog }
            var welcome = AppMessage.PairWelcome(codeID: code.codeID, roster: roster,
                                                 advert: try? signer.next(models: catalog.models, nowMs: now))
            welcome.proof = try PairingProofs.welcome(secret: code.secret, joiner: joiner.signingKey, welcome)
            relayAdmission.setRosterVersion(roster.version)
            welcome.relayProof = relayAdmission.relayProof(origin: configuration.link.relay.origin,
                                                           device: joiner.signingKey,
                                                           nowSeconds: RelayAdmission.nowSeconds)
            let confirmation = PairingProofs.confirmation(secret: code.secret, inviter: identity.record, joiner: joiner)
            if code.state == .open {
                try store.pairingUsed(code.codeID, device: joiner, confirmation: confirmation, nowMs: now)
                tellAsker(code.codeID, .used, joiner: joiner)
            }
            log("paired \(who): roster \(roster.version); confirmation \(confirmation)")
            count("paired")
            return .pairWelcome(welcome)
        } catch HomebaseError.noAccountKey {
            return refuse(.unavailable, "this Homebase does not hold the account key")
        } catch {
            log("pairing \(who): \(error)")
            return refuse(.unavailable, "the Homebase could not add the device")
        }
    }
}

extension HomebaseAgent {
    /// Runs `work` off the delivery loop (a pairing answer waits on its send), unless the agent
    /// is gone by then: the task holds it weakly.
    func whileAlive(_ work: @escaping @Sendable (HomebaseAgent) async -> Void) {
        Task { [weak self] in
            guard let self else { return }
            await work(self)
        }
    }
}
