import Inference
import Wire

/// What a grant allows beyond chat, on the host: the `grant-terms` it tells the grantee, and
/// the check admission makes before serving a grantee's request (SPEC: "Sharing with another
/// account"). Siblings never reach it: the own account's devices may always send tools.
enum GrantTools {
    /// The words the grantee's guest logs and shows (it then answers on its own device).
    static let refusal = "this grant does not allow tools: ask the owner to share with --tools"

    /// The terms mailed with grant `g`.
    static func terms(_ g: GrantRecord) -> AppMessage.GrantTerms {
        AppMessage.GrantTerms(grantID: g.grantID, tools: g.tools)
    }

    /// Nil when `request` may be served under `active` (the grantee's grants in force); else the
    /// refusal, to answer with `bad-request` before `accept`. Grants add up, as for models: one
    /// in force that allows tools is enough.
    static func refusal(_ request: ChatRequest, active: [GrantRecord]) -> String? {
        guard request.carriesTools, !active.contains(where: \.tools) else { return nil }
        return refusal
    }
}
