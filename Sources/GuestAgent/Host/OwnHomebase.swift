import Routing
import Signing
import Storage

/// Which Homebase of the account is "own" (`homebase.key`) when the roster lists two (a second
/// workstation joined with `homebase pair CODE`). The current one stays while it is usable, so
/// two live Homebases never make routing flip between them at every advert; another Homebase's
/// advert takes over when the current one is gone from the roster, has no advert, its advert is
/// older than the own-advert window (the router would skip it anyway), or it serves no model
/// while the other does.
enum OwnHomebase {
    /// Why `candidate` (an advert just stored) should replace `current`; nil to keep `current`.
    /// Freshness is the router's own judgement (`FreshnessLimits.ownAdvert`, clock-step tolerance
    /// included): an own Homebase the router would skip gives way.
    static func takeOver(current: PublicKey?, candidate: ReceivedAdvert, nowMs: Int64, limits: FreshnessLimits,
                         inRoster: (PublicKey) -> Bool, advertOf: (PublicKey) -> ReceivedAdvert?) -> String? {
        guard let current else { return "the first Homebase heard" }
        guard inRoster(current) else { return "the previous one left the roster" }
        guard let held = advertOf(current) else { return "the previous one never adverted" }
        let freshness = limits.ownAdvert(receiptMs: held.receiptMs, nowMs: nowMs)
        if !freshness.fresh { return "the previous one's advert is \(freshness.words)" }
        if held.advert.models.isEmpty && !candidate.advert.models.isEmpty { return "the previous one serves no model" }
        return nil
    }
}
