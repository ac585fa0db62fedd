import Inference
import Signing
import Wire

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

// What each route's brain can take beyond text: the table in Router+Needs.swift, route by route.
extension Route {
    /// Each need this route's brain cannot meet, in words ("own Homebase model x cannot see
    /// images (no vision in its advert)"). Empty: it can take the request.
    func lacks(_ needs: RequestNeeds, onDevice: any OnDeviceAbilities) -> [Lack] {
        var out: [Lack] = []
        switch self {
        case .cloud:
            return []  // the user chose this cloud and holds its key: its models take both
        case .ownHomebase(let received, let tag):
            let caps = received.advert.models.first { $0.tag == tag }?.capabilities
            let name = "own Homebase model \(tag)"
            if let over = needs.overRelayLimits { out.append(.size(over)) }
            if needs.tools, caps?.contains(.tools) != true { out.append(.tools("\(name) does not advertise tool use")) }
            if needs.images, caps?.contains(.vision) != true { out.append(.images("\(name) cannot see images (no vision in its advert)")) }
        case .joinedHomebase(let record, let tag):
            let key = record.hostKey
            let caps = record.capabilities[tag]
            let name = "joined Homebase \(shortKey(key)) model \(tag)"
            if let over = needs.overRelayLimits { out.append(.size(over)) }
            if needs.tools {
                if !record.toolsGranted {
                    out.append(.tools("the grant of joined Homebase \(shortKey(key)) does not allow tools (ask its owner to share with --tools)"))
                } else if caps?.contains(.tools) != true {
                    out.append(.tools("\(name) does not advertise tool use"))
                }
            }
            if needs.images, caps?.contains(.vision) != true { out.append(.images("\(name) cannot see images (no vision in its advert)")) }
        case .localEndpoint(let endpoint, let tag):
            let caps = endpoint.capabilities[tag]
            let name = "model \(tag) on local endpoint \(endpoint.url)"
            let unknown = caps == nil ? " (its probe learnt no capabilities)" : ""
            if needs.tools, caps?.contains(.tools) != true { out.append(.tools("\(name) does not support tools\(unknown)")) }
            if needs.images, caps?.contains(.vision) != true { out.append(.images("\(name) cannot see images\(unknown)")) }
        case .onDevice(let model):
            let caps = onDevice.capabilities(model)
            if needs.tools, !caps.contains(.tools) { out.append(.tools("the on-device \(model) cannot use tools")) }
            if needs.images, !caps.contains(.vision) { out.append(.images("the on-device \(model) cannot see images")) }
        }
        return out
    }

    /// "and the chosen cloud takes them", "and own Homebase model x can take them".
    var canTake: String {
        switch self {
        case .cloud: "and the chosen cloud takes them"
        case .joinedHomebase(_, let tag), .localEndpoint(_, let tag), .ownHomebase(_, let tag):
            "and \(target ?? "") model \(tag) can take them"
        case .onDevice(let model): "and the on-device \(model) can take them"
        }
    }
}
