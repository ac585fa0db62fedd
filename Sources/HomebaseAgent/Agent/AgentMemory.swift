/// The conversations the agent holds in memory: part of `AgentState`, guarded by the agent's
/// one lock (`HomebaseAgent.state`).
struct AgentMemory: Sendable {
    /// Siblings' conversations, replicated across the account's Homebases: written by
    /// HomebaseAgent+Inbound (replica deltas, `warmReplica`'s restore from the store) and by
    /// `remember` (Serving/HomebaseAgent+Serve: the messages, then the answer); read by `admit`
    /// for the prefix a sibling's request extends.
    var replica: ConversationMemory
    /// Grantees' conversations, never replicated: written by `remember` and read by `admit`
    /// (Serving/HomebaseAgent+Serve and +Admit), nobody else.
    var cache: ConversationMemory
}
