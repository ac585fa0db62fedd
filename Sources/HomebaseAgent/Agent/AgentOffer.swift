/// What this Homebase offers: the runtimes it holds and the models they serve. Part of
/// `AgentState`, guarded by the agent's one lock (`HomebaseAgent.state`).
struct AgentOffer: Sendable {
    /// The runtimes as the store holds them (verified or not): written by `reload()`
    /// (HomebaseAgent+Publish); read by `verifyAtStart` there, `runtimesVerified`
    /// (HomebaseAgent+Accounting), `serveManage` (HomebaseAgent+Manage) and `status`.
    var runtimes: [StoredRuntime] = []
    /// The models those runtimes serve: written by `reload()` (a change is advertised); read by
    /// `publishAdvert`, the chat and embedding admissions (`admit`, EmbeddingService), the
    /// pairing welcome (HomebaseAgent+Pairing) and the manage listing (HomebaseAgent+Manage).
    var catalog = ModelCatalog(runtimes: [])
}
