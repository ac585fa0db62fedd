import Inference

/// The brain that answers one request, as the guest's router (with its fallback runner) chose
/// it, and what to say about the choice.
public struct RoutedAnswer: Sendable {
    public var provider: any ChatProvider
    /// Extra facts for the final `homebase` field (route, reason, model...). Never a secret:
    /// clients and their logs see it. `brain` is always set from the provider.
    public var metadata: [String: String]

    public init(provider: any ChatProvider, metadata: [String: String] = [:]) {
        self.provider = provider; self.metadata = metadata
    }

    /// `{"brain": "...", ...metadata, ...report}`: the object sent as `homebase` in the last
    /// chunk, read when that chunk is written.
    var homebaseObject: [String: String] {
        var o = metadata
        if let r = provider as? any AnswerReporting { o.merge(r.report) { _, new in new } }
        o["brain"] = provider.brain.rawValue
        return o
    }
}

/// A provider that learns while answering which brain answers (a fallback runner): its `brain`
/// is the one speaking now, and `report` adds what the answer found out (fallbacks, the
/// router's reason) to the final `homebase` object. Never a secret, a prompt or an answer.
public protocol AnswerReporting: ChatProvider {
    var report: [String: String] { get }
}

/// Picks the brain for a request: called once per request, never cached.
public typealias AnswerRouter = @Sendable (ChatRequest) async -> RoutedAnswer

/// The models `GET /v1/models` and `GET /api/tags` list.
public typealias ModelLister = @Sendable () async -> [ListedModel]
