/// The on-device model: the built-in one, or a downloaded ("community") model by its id.
public enum LocalModel: Sendable, Equatable, CustomStringConvertible {
    case builtIn
    case community(String)

    public var description: String {
        switch self {
        case .builtIn: "built-in model"
        case .community(let id): "local model \(id)"
        }
    }
}

/// What `Router.resolve()` decided, and why. Built fresh at every call; never an error.
public struct RouteDecision: Sendable, Equatable, CustomStringConvertible {
    public var route: Route
    /// The on-device model: what any fallback runs (and what `.onDevice` carries).
    public var localModel: LocalModel
    /// One line for `status --explain` and logs, e.g. "own Homebase advert is 14 min old
    /// (limit 10 min): on-device". Never holds a key or a prompt.
    public var reason: String

    /// Set when no brain the user chose can take this request (an image and no brain that can
    /// see, tools and none that can use them): the caller shows it instead of an answer, and
    /// nothing is sent anywhere. Only `Router.decide(for:)` sets it; `reason` says the same.
    public var refusal: RoutingError?

    /// The model the request must name on the chosen brain, nil to keep the caller's.
    public var model: String? { route.model }

    public var description: String { "\(route): \(reason)" }

    /// The same decision with `prefix` before its reason (a degraded setting, the derivation).
    func noting(_ prefix: String) -> RouteDecision {
        var copy = self
        copy.reason = prefix + reason
        return copy
    }

    static func onDevice(_ model: LocalModel, _ reason: String) -> RouteDecision {
        RouteDecision(route: .onDevice(model), localModel: model, reason: reason)
    }
}
