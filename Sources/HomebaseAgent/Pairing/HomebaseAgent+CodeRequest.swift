import Courier
import Pairing
import PeerLink
import Sealing
import Signing
import Wire

// A device of the account asks for a pairing code (`guest pair` with no code): it does not hold
// the account key, this Homebase does. The code is made and stored exactly as `homebase pair`
// makes it (`PairingIssue`), pinned to this Homebase and its own relay, and goes back sealed to
// the asker only. Only a device of the roster is answered with a code (a grantee is refused; an
// unknown device never gets here: the Courier drops its envelopes). Logs never hold the code.
extension HomebaseAgent {
    func pairCodeRequest(_ d: Delivery, _ r: AppMessage.PairCodeRequest) {
        let asker = d.sender
        whileAlive { agent in
            let answer = agent.decidePairCode(asker, r)
            let outcome = await agent.courier.send(.pairCode(answer), to: asker)
            if outcome != .sent { agent.log("pairing code answer to \(asker.signingKey.short): \(outcome)") }
        }
    }

    /// The code or the refusal for one request (the code stored when issued).
    func decidePairCode(_ asker: DeviceRecord, _ r: AppMessage.PairCodeRequest) -> AppMessage.PairCode {
        let who = "\(asker.name) \(asker.signingKey.short)"
        func refuse(_ why: AppMessage.PairCode.Refusal, _ text: String) -> AppMessage.PairCode {
            log("pairing code refused for \(who): \(text)")
            count("pair-code-refused")
            return .init(requestID: r.requestID, result: .refused(why, text: text))
        }
        guard state.withLock({ $0.membership.siblings[asker.signingKey] != nil }) else {
            return refuse(.notInAccount, "this device is not a device of the Homebase's account (access shared with it is not "
                + "membership): only the account's devices can ask for a pairing code")
        }
        let valid = r.validMs == 0 ? PairingIssue.defaultValidMs : Int64(r.validMs)
        let range = PairingIssue.triesRange
        let tries = r.maxTries == 0 ? PairingIssue.defaultTries : min(max(Int(r.maxTries), range.lowerBound), range.upperBound)
        var pin: [UInt8]?
        if case .pinnedSHA256(let p) = configuration.link.trust { pin = p }
        do {
            let code = try PairingIssue.issue(files: files, store: store, inviter: identity.record,
                                              relayURL: configuration.link.relay.description,
                                              alternates: configuration.link.alternates.map(\.description), pin: pin,
                                              validMs: valid, maxTries: tries, nowMs: nowMs(),
                                              asker: (asker.signingKey, r.requestID))
            log("pairing code \(code.codeID.hex) issued for \(who): valid until \(PairingError.time(code.expiresMs)), \(tries) tries")
            count("pair-code-issued")
            return .init(requestID: r.requestID,
                         result: .issued(code: code.text, expiresMs: UInt64(code.expiresMs), maxTries: UInt8(tries)))
        } catch HomebaseError.noAccountKey {
            return refuse(.noAccountKey, "this Homebase does not hold the account key, so it cannot add devices")
        } catch {
            log("pairing code for \(who): \(error)")
            return refuse(.unavailable, "the Homebase could not store a code")
        }
    }
}
