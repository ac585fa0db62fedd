import Inference
import Signing

/// Which brain answers, carrying what that brain is built from: the routing contract's routes as
/// one closed list (docs/ARCHITECTURE.md, "The route is one closed enum"). Each case holds exactly
/// the facts the decision judged, so the brain is built (and its abilities judged) on them, never
/// on a second read. `BrainFactory.brain(for:)` builds it.
public enum Route: Sendable, Equatable, CustomStringConvertible {
    /// The on-device brain on this local model (the floor when no model file resolves).
    case onDevice(LocalModel)
    /// Another account's Homebase, through the relay its invite named: the record judged fresh.
    case joinedHomebase(JoinedHomebase, tag: String)
    /// A verified runtime on this machine's loopback that serves `tag`.
    case localEndpoint(LocalEndpoint, tag: String)
    /// The own account's Homebase, through the own relay: the advert judged fresh.
    case ownHomebase(ReceivedAdvert, tag: String)
    /// A cloud the user chose, a key on file; `model` is the model setting's pin (nil: the
    /// caller's). The key is not carried: a decision is shown and kept, and the brain reads its
    /// key at each request.
    case cloud(Cloud, model: String?)

    /// The brain this route builds (`.onDevice` becomes `.floor` when no model file resolves).
    public var brain: BrainKind {
        switch self {
        case .onDevice: .onDevice
        case .joinedHomebase: .joinedHomebase
        case .localEndpoint: .localEndpoint
        case .ownHomebase: .ownHomebase
        case .cloud(.openAI, _): .openAI
        case .cloud(.anthropic, _): .anthropic
        }
    }

    /// The contract's four families, as `status` and the page show them: `on-device`,
    /// `external` (a Homebase or a local endpoint, see `target`), `openai`, `anthropic`.
    public var name: String {
        switch self {
        case .onDevice: "on-device"
        case .joinedHomebase, .localEndpoint, .ownHomebase: "external"
        case .cloud: brain.rawValue
        }
    }

    /// Where an `external` route goes, in words; nil for on-device and the clouds.
    public var target: String? {
        switch self {
        case .joinedHomebase(let record, _): "joined Homebase \(shortKey(record.hostKey))"
        case .localEndpoint(let endpoint, _): "local endpoint \(endpoint.url)"
        case .ownHomebase: "own Homebase"
        case .onDevice, .cloud: nil
        }
    }

    /// The model the request must name on this brain (the Ollama selection's tag, the cloud
    /// model setting), or nil to keep the caller's (on-device names its own alias).
    public var model: String? {
        switch self {
        case .joinedHomebase(_, let tag), .localEndpoint(_, let tag), .ownHomebase(_, let tag): tag
        case .cloud(_, let model): model
        case .onDevice: nil
        }
    }

    /// The Homebase this route sends to, if any (whose cooldown applies, whose away mark counts).
    public var homebaseKey: PublicKey? {
        switch self {
        case .joinedHomebase(let record, _): record.hostKey
        case .ownHomebase(let received, _): received.advert.hostKey
        case .onDevice, .localEndpoint, .cloud: nil
        }
    }

    public var description: String { target.map { "\(name) (\($0))" } ?? name }
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
