import Courier
import Wire

// A roster by mail. The holder of the account key signs rosters and ignores any that come in;
// a Homebase that joined (`homebase pair CODE`) stores one when the account key on file signed
// it and it is newer (a replayed or forged roster is refused and logged). A roster that no
// longer lists this Homebase means it was removed: it says so and stops serving its siblings.
extension HomebaseAgent {
    /// A sibling holds roster `held` and asks for a newer one: the holder of the account key
    /// mails its current roster (trust mail, under the roster collapse key) when it is newer.
    func rosterAsked(_ d: Delivery, holding held: UInt64) {
        guard holdsAccountKey else { return }
        let (roster, sibling) = state.withLock { ($0.membership.roster, $0.membership.siblings[d.sender.signingKey]) }
        guard let roster, let sibling, roster.version > held else { return }
        count("roster-asked")
        mail.send(.roster(roster), to: sibling, ttl: configuration.rosterTTL,
                  collapseKey: courier.collapseKey(AdvertSigner.rosterKind, to: sibling.signingKey))
        log("roster \(roster.version) to \(sibling.signingKey.hex.prefix(16))…: it asked, holding \(held)")
    }

    /// False when the store failed (the mail stays at the relay, to be delivered again).
    func rosterMail(_ d: Delivery, _ r: AppMessage.Roster) -> Bool {
        let from = "\"\(d.sender.name)\" \(d.sender.signingKey.hex.prefix(16))…"
        guard !holdsAccountKey else {
            log("roster \(r.version) from \(from) ignored: this Homebase signs the account's rosters")
            count("roster-ignored")
            return true
        }
        guard state.withLock({ $0.membership.siblings[d.sender.signingKey] != nil }) else {
            log("refused roster \(r.version) from \(from): not a device of this account")
            count("roster-refused")
            return true
        }
        let verdict: RosterVerdict
        do { verdict = try store.acceptRoster(r, me: identity.signingKey.publicKey, nowMs: nowMs()) } catch {
            log("roster \(r.version) from \(from): \(error)")
            return false
        }
        switch verdict {
        case .held:
            count("roster-held")  // the holder seals it again on every pulse: not logged
        case .refused(let why):
            log("refused roster \(r.version) from \(from): \(why)")
            count("roster-refused")
        case .accepted(let version, let devices, let listed):
            do { try reload() } catch { log("reload: \(error)") }
            count("roster-accepted")  // after reload: whoever waits on the count reads the new siblings
            log(listed ? "roster \(version) accepted: \(devices) device(s)"
                : "roster \(version) accepted: this Homebase was removed from the account; it no longer serves its siblings")
        }
        return true
    }
}
