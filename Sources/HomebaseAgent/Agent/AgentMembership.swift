import Sealing
import Signing
import Wire

/// Who may ask this Homebase for anything: the account's other devices and the grantees.
/// Part of `AgentState`, guarded by the agent's one lock (`HomebaseAgent.state`). Only
/// `reload()` (HomebaseAgent+Publish) replaces it all, from the store; everyone else reads.
struct AgentMembership: Sendable {
    /// The account's other devices (empty when this Homebase is not `listed`): written by
    /// `reload()`; read by every handler that serves only the account (`serve` and `admit`, the
    /// replica in HomebaseAgent+Inbound, EmbeddingService, HomebaseAgent+Manage, the roster by
    /// mail, the pairing code's asker) and by the publishers (advert, roster, the away advert at sleep).
    var siblings: [PublicKey: DeviceRecord] = [:]
    /// Grants by grantee: written by `reload()` and `refreshGrants` (HomebaseAgent+Sharing, before
    /// a grantee's request, so a revoke holds at once); read by the admissions (`admit`,
    /// EmbeddingService, `admitRate`), HomebaseAgent+Accounting (budget, audit), `noteRecent`
    /// and the publishers (which grantees hear an advert, narrowed to their models).
    var grants: [PublicKey: [GrantRecord]] = [:]
    /// The roster as stored: written by `reload()`; read by `publishRoster` and `rosterAsked`
    /// (HomebaseAgent+Roster).
    var roster: AppMessage.Roster?
    /// This Homebase is in its roster (false: it was removed, and serves no sibling): written by
    /// `reload()`, which empties `siblings` when false; read by the tests.
    var listed = true
}
