import Courier
import Sealing
import Signing
import Wire

// A sibling that asked for a code (`guest pair` with no code) is told what became of it: used
// (with the joiner's record) or burnt by wrong tries. Live when it is connected (it usually
// waits), else as mail (the asker may have stopped waiting; it sees the notice next time it
// reads its mail, and skips it when it no longer waits for that request).
extension HomebaseAgent {
    func tellAsker(_ codeID: Bytes8, _ outcome: AppMessage.PairCodeOutcome.Outcome, joiner: DeviceRecord? = nil) {
        guard let code = try? store.pairing(codeID), let key = code.askerKey, let request = code.askerRequest else { return }
        guard let asker = state.withLock({ $0.membership.siblings[key] }) else {
            log("pairing code \(codeID.hex): its asker \(key.short) is no longer a device of the account")
            return
        }
        let message = AppMessage.pairCodeOutcome(.init(requestID: request, codeID: codeID, outcome: outcome,
                                                       wrongTries: UInt8(clamping: code.tries), deviceRecord: joiner?.encoded ?? []))
        count("pair-code-outcome")
        whileAlive { agent in
            let live = await agent.courier.send(message, to: asker)
            guard live != .sent else { return }
            agent.log("pairing code \(codeID.hex) outcome to \(key.short): \(live); sent as mail")
            agent.mail.send(message, to: asker, ttl: agent.configuration.rosterTTL, collapseKey: [])
        }
    }
}
