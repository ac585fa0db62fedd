import Inference
import Signing

/// Builds the brain for each shape. The product's factory wraps the real clients; every
/// method must return a provider (never fail): one that cannot work fails in its stream, and
/// the caller falls back on-device.
public protocol ProviderFactory: Sendable {
    func onDevice(model: LocalModel) -> any ChatProvider
    func ownHomebase(advert: ReceivedAdvert) -> any ChatProvider
    func joinedHomebase(record: JoinedHomebase) -> any ChatProvider
    /// `model` is the selected Ollama tag.
    func localEndpoint(url: String, model: String) -> any ChatProvider
    func openAI(key: SecretBytes) -> any ChatProvider
    func anthropic(key: SecretBytes) -> any ChatProvider
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

    private func build(_ decision: RouteDecision, callerModel: String?) -> RoutedProvider {
        let inner: any ChatProvider
        switch (decision.route, decision.shape) {
        case (.external, .joinedHomebase?):
            guard let record = decision.joined else { return fallback(decision, "joined record missing") }
            inner = factory.joinedHomebase(record: record)
        case (.external, .ownHomebase?):
            guard let advert = decision.ownAdvert else { return fallback(decision, "own advert missing") }
            inner = factory.ownHomebase(advert: advert)
        case (.external, .localEndpoint(let url)?):
            guard let tag = decision.model else { return fallback(decision, "no model selected") }
            inner = factory.localEndpoint(url: url, model: tag)
        case (.openAI, _), (.anthropic, _):
            let cloud: Cloud = decision.route == .openAI ? .openAI : .anthropic
            // Read only now, and only for the chosen cloud. A key removed since resolve(): on-device.
            guard let key = (try? keys.key(cloud)) ?? nil else {
                return fallback(decision, "\(cloud.rawValue) key could not be read")
            }
            inner = cloud == .openAI ? factory.openAI(key: key) : factory.anthropic(key: key)
        case (.onDevice, _), (.external, nil):
            return RoutedProvider(decision: decision, model: nil, inner: factory.onDevice(model: decision.localModel))
        }
        return RoutedProvider(decision: decision, model: decision.model ?? callerModel, inner: inner)
    }

    private func fallback(_ decision: RouteDecision, _ why: String) -> RoutedProvider {
        let onDevice = RouteDecision.onDevice(decision.localModel, "\(decision.reason); \(why): on-device")
        return RoutedProvider(decision: onDevice, model: nil, inner: factory.onDevice(model: onDevice.localModel))
    }
}
