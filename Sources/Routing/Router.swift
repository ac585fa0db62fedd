import Signing

/// The one decision point of the routing contract (docs/ARCHITECTURE.md, "The routing contract").
///
/// `resolve()` reduces the settings and the facts of this moment to a route, at every call:
/// nothing is cached, the settings are re-read each time. It never throws and never returns an
/// error: a fact that is missing, unreadable or corrupt routes on-device, with the reason said.
/// It touches no network: it reads only the injected facts (`provider` then builds the brain).
public struct Router: Sendable {
    let settings: any SettingsSource
    let keys: any KeyRing
    let localEndpoint: any LocalEndpointSource
    let ownAdverts: any OwnAdvertSource
    let joined: any JoinedHomebaseSource
    let role: any HostRole
    let clock: any WallClock
    let factory: any BrainFactory
    /// What the on-device brain can do (tools, sight): read by `decide(for:)` only.
    let onDevice: any OnDeviceAbilities
    public let limits: FreshnessLimits
    /// Homebases to skip for a while (Cooldown.swift); nil: none.
    public var cooldowns: (any CooldownSource)?
    /// Hosts that said they went to sleep (Away.swift): the reason's words; nil: none.
    public var away: (any AwaySource)?

    public init(settings: any SettingsSource, keys: any KeyRing, localEndpoint: any LocalEndpointSource,
                ownAdverts: any OwnAdvertSource, joined: any JoinedHomebaseSource, role: any HostRole,
                clock: any WallClock, factory: any BrainFactory,
                onDevice: any OnDeviceAbilities = FixedOnDeviceAbilities(),
                limits: FreshnessLimits = FreshnessLimits()) {
        self.settings = settings; self.keys = keys; self.localEndpoint = localEndpoint
        self.ownAdverts = ownAdverts; self.joined = joined; self.role = role
        self.clock = clock; self.factory = factory; self.onDevice = onDevice; self.limits = limits
    }

    public func resolve() -> RouteDecision {
        // Re-read at every call, never cached. Unreadable settings: nothing was chosen.
        guard let s = try? settings.routingSettings() else {
            return .onDevice(.builtIn, "settings could not be read: on-device")
        }
        let local = Self.localModel(s)
        switch ModelSource(s[.modelSource]) {
        // Model-source radio: on-device (built-in) / community (a downloaded local model) / external.
        case .onDevice:
            return .onDevice(.builtIn, "model source is on-device: built-in model")
        case .community:
            if case .community = local { return .onDevice(local, "model source is community: \(local)") }
            return .onDevice(.builtIn, "model source is community but no local model is chosen: built-in model")
        case .external:
            // External has a runtime dropdown: Ollama (default), OpenAI, Claude.
            switch ExternalRuntime(s[.externalRuntime]) {
            case .ollama(let note):
                switch ollamaArm(s, local) {
                case .route(let decision): return decision.noting(note)
                case .unusable(let why): return .onDevice(local, note + why + ": on-device")
                }
            // OpenAI/Claude route only when a key is on file; otherwise on-device.
            case .openAI: return cloud(.openAI, s, local, chosen: "external runtime is OpenAI")
            case .claude: return cloud(.anthropic, s, local, chosen: "external runtime is Claude")
            }
        case .legacyOpenAI:
            // A legacy stored radio value `openai` still routes (key → openai, else on-device).
            return cloud(.openAI, s, local, chosen: "legacy model source 'openai'")
        case .unset:
            // A radio never set derives: working Ollama arm, then explicit local-model
            // preference, then stored OpenAI key, then on-device.
            let arm: String
            switch ollamaArm(s, local) {
            case .route(let decision): return decision.noting("model source not set: ")
            case .unusable(let why): arm = why
            }
            if case .community = local {
                return .onDevice(local, "model source not set, \(arm); local-model preference: \(local)")
            }
            if (try? keys.hasKey(.openAI)) == true {
                return cloud(.openAI, s, local, chosen: "model source not set, \(arm); OpenAI key on file")
            }
            return .onDevice(.builtIn, "model source not set, \(arm); no local-model preference or OpenAI key: on-device")
        case .unrecognized:
            // A corrupt value degrades; never a cloud the user did not choose.
            return .onDevice(local, "model source value not recognized: on-device")
        }
    }

}

// The Ollama arm and the cloud routes: the rest of the decision, in the contract's words.
extension Router {
    enum Arm { case route(RouteDecision), unusable(String) }

    /// The Ollama arm, its shapes tried in the contract's order.
    func ollamaArm(_ s: RoutingSettings, _ local: LocalModel) -> Arm {
        // Ollama arm needs a selected model tag.
        guard let tag = s[.ollamaModel]?.trimmingWhitespace(), !tag.isEmpty else {
            return .unusable("no Ollama model is selected")
        }
        let now = clock.nowMs()
        switch HostChoice(s[.ollamaHost]) {
        case .joined(let key):
            // 1. The selection names a joined Homebase (another account's host key): route
            //    cross-account while that host is fresh (advert or any inbound frame within
            //    24 h), the join is accepted and it advertises a model; else on-device.
            return joinedShape(key, tag: tag, now: now, local)
        case .own(let note):
            // A stored host value that is not valid hex of the right length degrades to "own".
            switch ownShapes(tag: tag, now: now, local) {
            case .route(let decision): return .route(decision.noting(note))
            case .unusable(let why): return .unusable(note + why)
            }
        }
    }

    private func joinedShape(_ key: PublicKey, tag: String, now: Int64, _ local: LocalModel) -> Arm {
        let name = "joined Homebase \(shortKey(key))"
        guard let record = (try? joined.joinedHomebase(key)) ?? nil else { return .unusable("\(name) is not on file") }
        // The host never routes to itself over the network.
        if key == role.homebaseHostKey { return .unusable("\(name) is this Homebase") }
        // An invitation not accepted never routes (nor a revoked one).
        guard record.state == .joined else { return .unusable("\(name) is \(record.state.rawValue), not joined") }
        guard let heard = record.lastHeardMs else { return .unusable("nothing heard from \(name) yet") }
        let freshness = limits.joined(heardMs: heard, nowMs: now)
        let heardWords = "last heard \(freshness.words)"
        guard freshness.fresh else { return .unusable("\(name) \(heardWords)") }
        guard !record.models.isEmpty else {
            if let asleep = asleep(key, heardMs: heard) { return .unusable("\(name) is \(asleep)") }
            return .unusable("\(name) advertises no models")
        }
        if let why = cooledDown(key, heardMs: heard, now: now) { return .unusable("\(name) \(why)") }
        return .route(RouteDecision(route: .joinedHomebase(record, tag: tag), localModel: local,
                                    reason: "Ollama model \(tag) on \(name), \(heardWords)"))
    }

    private func ownShapes(tag: String, now: Int64, _ local: LocalModel) -> Arm {
        // 2. A verified local endpoint (loopback runtime on this machine) that serves the tag
        //    → local OpenAI-compatible client.
        let endpoint = (try? localEndpoint.verifiedEndpoint()) ?? nil
        if let endpoint, endpoint.isLoopback, endpoint.models.contains(tag) {
            return .route(RouteDecision(route: .localEndpoint(endpoint, tag: tag), localModel: local,
                                        reason: "Ollama model \(tag) on verified local endpoint \(endpoint.url)"))
        }
        let noLocal = endpoint == nil ? "no verified local endpoint"
            : endpoint!.isLoopback ? "local endpoint does not serve \(tag)" : "local endpoint is not on loopback"
        // 3. A sibling advert (own account's Homebase) younger than 10 minutes and non-empty
        //    → relay. Not on the Homebase itself: the host never routes to itself.
        if role.homebaseHostKey != nil { return .unusable("\(noLocal); this is the Homebase: never to itself") }
        guard let received = (try? ownAdverts.latestOwnAdvert()) ?? nil else {
            return .unusable("\(noLocal); no own Homebase advert")
        }
        let freshness = limits.ownAdvert(receiptMs: received.receiptMs, nowMs: now)
        let advertWords = "own Homebase advert is \(freshness.words)"
        guard freshness.fresh else { return .unusable("\(noLocal); \(advertWords)") }
        guard !received.advert.models.isEmpty else {
            if let asleep = asleep(received.advert.hostKey, advertSequence: received.advert.sequence) { return .unusable("\(noLocal); own Homebase is \(asleep)") }
            return .unusable("\(noLocal); own Homebase advert lists no models")
        }
        if let why = cooledDown(received.advert.hostKey, heardMs: received.receiptMs, now: now) { return .unusable("\(noLocal); own Homebase \(why)") }
        // 4. Anything else → on-device (the callers above).
        return .route(RouteDecision(route: .ownHomebase(received, tag: tag), localModel: local,
                                    reason: "Ollama model \(tag) on own Homebase, \(advertWords)"))
    }

    /// A cloud route, only with a key on file; the user chose this cloud (`chosen` says how).
    private func cloud(_ cloud: Cloud, _ s: RoutingSettings, _ local: LocalModel, chosen: String) -> RouteDecision {
        guard (try? keys.hasKey(cloud)) == true else {
            return .onDevice(local, "\(chosen) but no \(cloud.rawValue) key is on file: on-device")
        }
        let model = s[cloud == .openAI ? .openAIModel : .claudeModel]?.trimmingWhitespace()
        return RouteDecision(route: .cloud(cloud, model: model?.isEmpty == false ? model : nil), localModel: local,
                             reason: "\(chosen), \(cloud.rawValue) key on file")
    }

    /// The on-device model: the explicit local-model preference when set, else the built-in
    /// one (the radio on `on-device` means the built-in model, whatever the preference).
    static func localModel(_ s: RoutingSettings) -> LocalModel {
        guard let id = s[.localModel]?.trimmingWhitespace(), !id.isEmpty else { return .builtIn }
        return .community(id)
    }
}

// The stored raw values, interpreted here and only here: a corrupt value degrades, never throws.

/// The model-source radio as stored.
enum ModelSource {
    case unset, onDevice, community, external, legacyOpenAI
    /// Anything else (a corrupt or future value, a blank): routes on-device.
    case unrecognized

    init(_ raw: String?) {
        guard let raw else { self = .unset; return }
        switch raw.trimmingWhitespace().lowercased() {
        case "on-device", "ondevice": self = .onDevice
        case "community": self = .community
        case "external": self = .external
        case "openai": self = .legacyOpenAI
        default: self = .unrecognized
        }
    }
}

/// The external runtime dropdown. Unset is Ollama (the default); so is a corrupt value, which
/// can never reach a cloud that way. `note` says when a value was not understood.
enum ExternalRuntime {
    case ollama(note: String), openAI, claude

    init(_ raw: String?) {
        switch raw?.trimmingWhitespace().lowercased() {
        case nil, "ollama": self = .ollama(note: "")
        case "openai": self = .openAI
        case "claude": self = .claude
        default: self = .ollama(note: "external runtime value not recognized, using Ollama; ")
        }
    }
}

/// Whose Homebase the Ollama selection names: `own` (unset, "own", or any value that is not
/// 64 hex digits, with a note) or another account's host key.
enum HostChoice {
    case own(note: String)
    case joined(PublicKey)

    init(_ raw: String?) {
        let value = raw?.trimmingWhitespace() ?? "own"
        if value.lowercased() == "own" {
            self = .own(note: "")
        } else if let key = PublicKey(hex: value) {
            self = .joined(key)
        } else {
            self = .own(note: "Ollama host value is not a host key, using own; ")
        }
    }
}
