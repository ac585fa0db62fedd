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
    static func takeOver(current: PublicKey?, candidate: ReceivedAdvert, nowMs: Int64, maxAgeMs: Int64,
                         inRoster: (PublicKey) -> Bool, advertOf: (PublicKey) -> ReceivedAdvert?) -> String? {
        guard let current else { return "the first Homebase heard" }
        guard inRoster(current) else { return "the previous one left the roster" }
        guard let held = advertOf(current) else { return "the previous one never adverted" }
        let age = nowMs - held.receiptMs
        if age >= maxAgeMs { return "the previous one is silent for \(age / 1000) s" }
        if held.advert.models.isEmpty && !candidate.advert.models.isEmpty { return "the previous one serves no model" }
        return nil
    }
}
