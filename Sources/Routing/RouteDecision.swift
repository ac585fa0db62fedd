import Signing

/// Which brain answers: the four routes of the routing contract.
public enum Route: String, Sendable, Equatable, CaseIterable {
    case onDevice = "on-device"
    /// A runtime driven through the Ollama arm: a joined Homebase, a local endpoint or the own
    /// Homebase (see `ExternalShape`).
    case external
    case openAI = "openai"
    case anthropic
}

/// Where an `.external` route goes, in the contract's order of preference.
public enum ExternalShape: Sendable, Equatable, CustomStringConvertible {
    /// Another account's Homebase, through the relay named in its invite.
    case joinedHomebase(hostKey: PublicKey)
    /// A verified runtime on this machine's loopback (OpenAI-compatible).
    case localEndpoint(url: String)
    /// The own account's Homebase, through the own relay.
    case ownHomebase

    public var description: String {
        switch self {
        case .joinedHomebase(let key): "joined Homebase \(shortKey(key))"
        case .localEndpoint(let url): "local endpoint \(url)"
        case .ownHomebase: "own Homebase"
        }
    }
}

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
    /// Set exactly when `route == .external`.
    public var shape: ExternalShape?
    /// The model the request must name on the chosen brain (the Ollama selection's tag, the
    /// cloud model setting), or nil to keep the caller's.
    public var model: String?
    /// The on-device model: what `.onDevice` runs, and what any fallback runs.
    public var localModel: LocalModel
    /// One line for `status --explain` and logs, e.g. "own Homebase advert is 14 min old
    /// (limit 10 min): on-device". Never holds a key or a prompt.
    public var reason: String

    /// Set when no brain the user chose can take this request (an image and no brain that can
    /// see, tools and none that can use them): the caller shows it instead of an answer, and
    /// nothing is sent anywhere. Only `Router.decide(for:)` sets it; `reason` says the same.
    public var refusal: RoutingError?

    /// The joined record, own advert or local endpoint the decision was made on, so the provider
    /// is built (and capabilities judged) on exactly what was judged fresh (no second read).
    var joined: JoinedHomebase?
    var ownAdvert: ReceivedAdvert?
    var endpoint: LocalEndpoint?

    public var description: String {
        let target = shape.map { "\(route.rawValue) (\($0))" } ?? route.rawValue
        return "\(target): \(reason)"
    }

    /// The same decision with `prefix` before its reason (a degraded setting, the derivation).
    func noting(_ prefix: String) -> RouteDecision {
        var copy = self
        copy.reason = prefix + reason
        return copy
    }

    static func onDevice(_ model: LocalModel, _ reason: String) -> RouteDecision {
        RouteDecision(route: .onDevice, shape: nil, model: nil, localModel: model, reason: reason)
    }
}
