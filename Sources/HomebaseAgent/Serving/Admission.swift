import Inference
import InferenceWire
import Sealing
import Signing
import Wire

/// Everything one admitted request needs before the engine is called.
struct ServePlan: Sendable {
    var chat: ChatRequest
    /// Device-local engine URL (the first that serves the model).
    var runtimeURL: String
    /// Every runtime serving the model; the agent picks the least loaded (#21).
    var runtimeURLs: [String] = []
    /// Where the conversation is remembered (replica for siblings, cache for grantees).
    var memoryKey: [UInt8]
    var isSibling: Bool
    /// The whole conversation the answer extends.
    var conversation: [AppMessage.ChatMessage]
    /// The requester reads the typed reply stream (it sent a version 2 request).
    var typed: Bool = false
    /// Option keys of a later version this host skipped: told to the requester first.
    var ignoredOptions: [UInt16] = []
}

/// What the serving path knows of the world when a request arrives (one consistent snapshot).
struct AdmissionView: Sendable {
    var siblings: Set<PublicKey>
    var grants: [PublicKey: [GrantRecord]]
    var catalog: ModelCatalog
    var nowMs: Int64

    /// The grants of `sender` in force now; when none is, the message of the `revoked` refusal
    /// (a chat and an embedding are refused alike).
    func grantsInForce(of sender: PublicKey) -> (active: [GrantRecord], refusal: String?) {
        let held = grants[sender] ?? []
        let active = held.filter { $0.isActive(nowMs: nowMs) }
        guard active.isEmpty else { return (active, nil) }
        let expired = held.contains { !$0.revoked }
        return ([], expired ? "the grant for this device expired" : "no grant in force for this device")
    }
}

/// Decides a request, in this order: whether its layout is one this host reads (`unsupported`),
/// who asks (a sibling, or a grantee with a grant in force: else `revoked`), whether it is well
/// formed (`bad_request`, an unknown critical option included), whether the model is served and
/// granted (`model_unavailable`), whether the conversation prefix is held (`diverged` for a
/// sibling, `cache_miss` for a grantee), and whether its images fit the limits (`too_large`).
/// The concurrency gate (`busy`) comes after, in the agent.
enum Admission {
    enum Decision: Sendable {
        case serve(ServePlan)
        /// Answered with this error at once (before `accept`).
        case refuse(AppMessage.InferenceError)
    }

    /// Engine limits a request may not exceed (the wire allows more).
    static let maxTokensCap: UInt32 = 1 << 20

    static func decide(_ r: AppMessage.Request, from sender: PublicKey, view: AdmissionView,
                       replica: inout ConversationMemory, cache: inout ConversationMemory)
        -> Decision {
        func fail(_ code: AppMessage.ErrorCode, _ message: String) -> Decision {
            .refuse(AppMessage.InferenceError(requestID: r.requestID, code: code, message: message))
        }
        guard r.version <= AppMessage.Request.newestVersion else {
            return fail(.unsupported, "this Homebase reads requests up to version \(AppMessage.Request.newestVersion); "
                        + "the guest sent version \(r.version): upgrade homebase")
        }
        let isSibling = view.siblings.contains(sender)
        // A grantee may hold several grants: the models of those in force add up.
        var granted: Set<String>?
        if !isSibling {
            let (active, refusal) = view.grantsInForce(of: sender)
            if let refusal { return fail(.revoked, refusal) }
            granted = Set(active.flatMap(\.models))
        }
        guard !r.messages.isEmpty else { return fail(.badRequest, "a request carries at least one new message") }
        guard !r.model.isEmpty else { return fail(.badRequest, "a request names a model") }
        guard r.maxTokens <= maxTokensCap else { return fail(.badRequest, "max tokens above \(maxTokensCap)") }
        if let key = r.options.unknownCritical.first {
            return fail(.badRequest, "option 0x\(String(key, radix: 16)) must not be ignored and this Homebase does not know it: upgrade homebase")
        }
        if r.inline && r.prefixHash != .zero { return fail(.badRequest, "an inline request extends no prefix") }
        if let granted, !granted.contains(r.model) {
            return fail(.modelUnavailable, "model not granted to this device")
        }
        guard let url = view.catalog.runtimeURL(for: r.model) else {
            return fail(.modelUnavailable, "model not served here now")
        }
        let key = isSibling ? r.conversationID.bytes : sender.bytes + r.conversationID.bytes
        let prefix: [AppMessage.ChatMessage]
        if r.inline {
            prefix = []
        } else if let p = isSibling ? replica.prefix(key, hashed: r.prefixHash.bytes)
                                    : cache.prefix(key, hashed: r.prefixHash.bytes) {
            prefix = p
        } else {
            return isSibling ? fail(.diverged, "conversation prefix not held: send the sync-delta")
                             : fail(.cacheMiss, "conversation not cached: resend it inline")
        }
        let conversation = prefix + r.messages
        // The engine is sent the whole conversation: its images count, the replica's too.
        if let why = WireBridge.limitProblem(conversation) { return fail(.tooLarge, why) }
        let chat = WireBridge.chatRequest(r, conversation: conversation)
        // #23 (route23): tools under grants that do not allow them (`homebase share --tools`).
        if !isSibling, let refusal = GrantTools.refusal(chat, active: (view.grants[sender] ?? []).filter { $0.isActive(nowMs: view.nowMs) }) {
            return fail(.badRequest, refusal)
        }
        // A context length (0x000a, Ollama's num_ctx) is known but cannot be carried: no
        // OpenAI-compatible engine takes one per request (OpenAIRequestBody). Named, not dropped.
        let uncarried: [UInt16] = chat.options.contextLength != nil ? [0x000A] : []
        return .serve(ServePlan(chat: chat, runtimeURL: url, runtimeURLs: view.catalog.runtimeURLs(for: r.model), memoryKey: key,
                                isSibling: isSibling, conversation: conversation,
                                typed: r.version >= 2, ignoredOptions: (r.options.unknownKeys + uncarried).sorted()))
    }

    /// The inference error code for an engine failure.
    static func code(for error: InferenceError) -> AppMessage.ErrorCode {
        switch error {
        case .modelUnavailable: .modelUnavailable
        case .http(let status, _) where status == 400 || status == 413 || status == 422: .badRequest
        default: .hostError
        }
    }
}
