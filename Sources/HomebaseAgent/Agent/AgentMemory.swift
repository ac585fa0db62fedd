/// The conversations the agent holds in memory: part of `AgentState`, guarded by the agent's
/// one lock (`HomebaseAgent.state`).
struct AgentMemory: Sendable {
    /// Siblings' conversations, replicated across the account's Homebases: written by
    /// HomebaseAgent+Inbound (replica deltas, `serve` holding a sibling's messages, the restore
    /// from the store), read there to answer a sibling's resume.
    var replica: ConversationMemory
    /// Grantees' conversations, never replicated: written and read only by `serve` in
    /// HomebaseAgent+Inbound.
    var cache: ConversationMemory
}
