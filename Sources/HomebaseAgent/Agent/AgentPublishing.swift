import PeerLink
import Sealing
import Signing
import Wire

/// What the agent still owes its devices, and the link it would send it on: part of
/// `AgentState`, guarded by the agent's one lock (`HomebaseAgent.state`).
struct AgentPublishing: Sendable {
    /// The link as last heard: written by `linkEvent` (HomebaseAgent+Publish), `sayGoodbye`
    /// (HomebaseAgent+Sleep) and `stop()`; read by the publishers (advert, roster, sharing
    /// notices) to send now or leave it due, and by `status`.
    var linkState: LinkState = .stopped
    /// An advert is owed to the grantees (one was due while the link was down, or the host slept):
    /// set by `publishAdvert` with the link down and by HomebaseAgent+Sleep, read by `linkEvent`
    /// on reconnect, cleared by `publishAdvert` once the link is up.
    var advertDue = false
    /// The roster is owed to the siblings: set by `reload()` (a new version) and `linkEvent`
    /// (reconnect), cleared by `publishRoster` (all in HomebaseAgent+Publish).
    var rosterDue = false
    /// The roster version last sent to the siblings (nil: not yet): written by `publishRoster`,
    /// read by `reload()`.
    var rosterSent: UInt64?
    /// Devices removed from the roster since the last roster was sent: told once. Added by
    /// `reload()`, emptied by `publishRoster`.
    var removed: [PublicKey: DeviceRecord] = [:]
    /// Grants and revocations queued in this run, not yet stored by the relay: only
    /// HomebaseAgent+Sharing (`queueNotice`, `noticeStored`).
    var noticesQueued: Set<Notice> = []
}

/// A grant (`grant`) or revocation/refusal notice for one join.
struct Notice: Hashable, Sendable {
    var grantID: Bytes16
    var grant: Bool
}
