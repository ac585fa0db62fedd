import Signing
import Wire

/// The requests the agent is serving and what it counts of them: part of `AgentState`,
/// guarded by the agent's one lock (`HomebaseAgent.state`).
struct AgentServing: Sendable {
    /// Requests in flight (chat, embedding, manage), so a `cancel` finds its task: registered
    /// and removed by `handle` (HomebaseAgent+Inbound), all cancelled by `stop()`, counted by `status`.
    var active: [ActiveRequest: Task<Void, Never>] = [:]
    /// How requests and mail ended, by outcome name: added to by `count` (HomebaseAgent+Inbound,
    /// called by every handler) and the replica's refusals there; read by `status`.
    var outcomes: [String: Int] = [:]
    /// The last requests (`RecentRing.capacity`), for the status page: added to by `noteRecent`
    /// (every served request), read by `status`.
    var recent = RecentRing()
    /// Grantees' recent admissions, for their grants' rate per minute: only `admitRate`
    /// (the chat and embedding admissions).
    var rates: [PublicKey: RateWindow] = [:]
    /// Requests in flight per runtime, and the runtimes skipped after a failure (#21): only
    /// HomebaseAgent+Accounting (taken and released around each request, failed and verified).
    var load = RuntimeLoad()
    /// Pulls under way, by the model as the request named it (a cancel stops one): only
    /// HomebaseAgent+ManageActions.
    var pulls: [String: Task<Result<String, ManagedRuntime.Failure>, Never>] = [:]
}

/// A request in flight: the sender and its request id.
struct ActiveRequest: Hashable, Sendable {
    var sender: PublicKey
    var requestID: Bytes16
}
