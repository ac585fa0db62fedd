import Routing
import Sealing
import Signing
import Wire

/// Mail from another account's Homebase this guest joined (or asked to): `grant` takes the
/// record to `joined` with the granted models; `grant-terms` says whether requests may carry tools; `revoke` (a revocation, or the refusal of the
/// join) takes it to `revoked` and keeps the reason; a signed `advert` refreshes the models and
/// the last-heard time. Anything from a host not on file is not for this handler (nil).
struct JoinMail: Sendable {
    let store: JoinedHomebaseStore
    let files: JoinedHostFiles
    /// Where an `away` from a joined host is kept (nil: refused, as before).
    var awayFile: AwayFile? = nil

    func handle(_ message: AppMessage, from sender: DeviceRecord, heldMs: UInt64) -> GuestMail.Outcome? {
        let host = sender.signingKey
        guard let joined = try? store.joinedRecord(host) else { return nil }
        let who = shortKey(host)
        // The record the Courier opened with must be the one the invite named.
        guard joined.hpkeKey == sender.hpkeKey.bytes else { return .refused("mail from \(who): HPKE key differs from the invite's") }
        do throws(RoutingError) {
            switch message {
            case .grant(let g):
                guard joined.state != .revoked else { return .refused("grant from \(who): the join was refused or revoked") }
                try store.markJoined(host)
                try store.setModels(host, g.models)
                try store.heard(from: host, heldMs: heldMs)
                files.setNote(host, nil)
                return .stored("grant from \(who): joined, \(g.models.count) model(s)")
            case .grantTerms(let t):
                // Sent just before its grant: taken while invited too (never once revoked).
                guard joined.state != .revoked else { return .refused("grant terms from \(who): the join was refused or revoked") }
                try store.setToolsGranted(host, t.tools)
                try store.heard(from: host, heldMs: heldMs)
                return .stored("grant terms from \(who): tools \(t.tools ? "allowed" : "not allowed")")
            case .revoke(let r):
                files.setNote(host, r.reason)  // first: a `guest join` polling sees the state, then reads the note
                try store.markRevoked(host)
                return .stored("revoke from \(who): \(r.reason)")
            case .advert(let a):
                guard joined.state == .joined else { return .refused("advert from \(who): not joined (\(joined.state.rawValue))") }
                guard a.hostKey.bytes == host.bytes else { return .refused("advert from \(who): names another host") }
                let updated = try store.acceptAdvert(a, heldMs: heldMs)
                return .stored("advert \(a.sequence) from joined \(who): \(updated.models.count) model(s)")
            case .away(let a) where awayFile != nil:
                guard awayFile?.accept(a, from: host, nowMs: SystemWallClock().nowMs()) == true else {
                    return .refused("away from \(who): not signed by it")
                }
                return .stored("away: joined \(who) went to sleep")
            default:
                return .refused("ignored \(message.typeCode) from joined \(who)")
            }
        } catch .storage(let e) {
            return .kept("from joined \(who): \(e)")  // the store failed: the relay keeps it for later
        } catch {
            return .refused("from joined \(who): \(error)")
        }
    }
}
