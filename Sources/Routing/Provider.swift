import Inference

/// Builds the brain a route names: the one seam between the router and the brains. The product's
/// is `GuestBrains` (GuestAgent); a unit test's records or scripts. Never fails: a brain that
/// cannot work fails in its stream, and the caller falls back on-device.
public protocol BrainFactory: Sendable {
    func brain(for route: Route) -> any ChatProvider
}

/// The provider a call gets: the brain the router chose, with the decision that chose it
/// (for logs and `status`), naming the routed model on every request.
public struct RoutedProvider: ChatProvider {
    public let decision: RouteDecision
    /// What the request names as its model: the decision's pin, else the caller's; nil keeps
    /// the request's own.
    public let model: String?
    let inner: any ChatProvider

    public var brain: BrainKind { inner.brain }

    public func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error> {
        var routed = request
        if let model { routed.model = model }
        return inner.stream(routed)
    }
}

extension Router {
    /// Resolves (settings re-read, nothing cached) and builds the chosen brain. `model` is the
    /// caller's model name, used when the decision does not pin one. Never fails.
    public func provider(model: String? = nil) -> RoutedProvider {
        build(resolve(), callerModel: model)
    }

    /// As `provider(model:)` for this request: the decision is `decide(for:)`, which checks what
    /// the request needs (tools, sight) against the chosen brain (Router+Needs.swift). A refused
    /// request gets a provider that fails with the refusal (callers check `decision.refusal`).
    public func provider(for request: ChatRequest) -> RoutedProvider {
        let decision = decide(for: request)
        if let refusal = decision.refusal {
            return RoutedProvider(decision: decision, model: nil, inner: RefusedProvider(refusal: refusal))
        }
        return build(decision, callerModel: request.model)
    }

    /// The brain of `route` from this router's factory, without a decision: the runner's
    /// on-device fallback (`.onDevice(decision.localModel)`).
    public func brain(for route: Route) -> any ChatProvider { factory.brain(for: route) }

    private func build(_ decision: RouteDecision, callerModel: String?) -> RoutedProvider {
        // Read only now, and only for the chosen cloud. A key removed since resolve(): on-device.
        // Only its presence is handed on: the brain reads its key file at each request.
        if case .cloud(let cloud, _) = decision.route, ((try? keys.key(cloud)) ?? nil) == nil {
            return fallback(decision, "\(cloud.rawValue) key could not be read")
        }
        let inner = factory.brain(for: decision.route)
        // The on-device brain names its own model (the engine's alias); the others the pin or the caller's.
        if case .onDevice = decision.route { return RoutedProvider(decision: decision, model: nil, inner: inner) }
        return RoutedProvider(decision: decision, model: decision.model ?? callerModel, inner: inner)
    }

    private func fallback(_ decision: RouteDecision, _ why: String) -> RoutedProvider {
        let onDevice = RouteDecision.onDevice(decision.localModel, "\(decision.reason); \(why): on-device")
        return RoutedProvider(decision: onDevice, model: nil, inner: factory.brain(for: onDevice.route))
    }
}
