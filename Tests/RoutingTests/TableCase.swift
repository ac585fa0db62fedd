import Routing
import Signing
import Wire

// The dimensions of the router's table test, and the route each combination must give,
// written from the contract text in docs/ARCHITECTURE.md ("The routing contract") without
// calling any of the router's own helpers.

enum Radio: CaseIterable { case unset, onDevice, community, external, legacyOpenAI, garbage }
enum Dropdown: CaseIterable { case unset, ollama, openai, claude, garbage }
enum Selection: CaseIterable { case none, tagOnly, ownTag, hostTag, corruptHostTag }
enum KeysOnFile: CaseIterable { case none, openai, anthropic, both }
enum Endpoint: CaseIterable { case none, servesTag, lacksTag }
enum OwnAdvert: CaseIterable { case absent, fresh, stale, empty }
enum JoinState: CaseIterable { case absent, invited, joined, revoked }

struct JoinedCase: CustomStringConvertible {
    var state: JoinState
    var fresh: Bool
    var hasModels: Bool
    static let all: [JoinedCase] = [JoinedCase(state: .absent, fresh: false, hasModels: false)]
        + [JoinState.invited, .joined, .revoked].flatMap { s in
            [true, false].flatMap { f in [true, false].map { m in JoinedCase(state: s, fresh: f, hasModels: m) } }
        }
    var description: String { state == .absent ? "absent" : "\(state) fresh=\(fresh) models=\(hasModels)" }
}

struct TableCase: CustomStringConvertible {
    var radio: Radio, dropdown: Dropdown, selection: Selection, keys: KeysOnFile, endpoint: Endpoint
    var own: OwnAdvert, joined: JoinedCase, onHomebase: Bool, localPreference: Bool

    var description: String {
        "radio=\(radio) dropdown=\(dropdown) selection=\(selection) keys=\(keys) endpoint=\(endpoint) "
            + "own=\(own) joined=[\(joined)] homebase=\(onHomebase) pref=\(localPreference)"
    }

    var openAIKey: Bool { keys == .openai || keys == .both }
    var anthropicKey: Bool { keys == .anthropic || keys == .both }

    /// The contract, case by case.
    var expected: (route: Family, shape: ExpectedShape?) {
        switch radio {
        case .onDevice, .community, .garbage:
            return (.onDevice, nil)
        case .legacyOpenAI:
            // "A legacy stored radio value openai still routes (key → openai, else on-device)."
            return openAIKey ? (.openAI, nil) : (.onDevice, nil)
        case .external:
            switch dropdown {
            case .openai: return openAIKey ? (.openAI, nil) : (.onDevice, nil)
            case .claude: return anthropicKey ? (.anthropic, nil) : (.onDevice, nil)
            case .unset, .ollama, .garbage:  // Ollama is the default; a corrupt value is not a cloud
                if let shape = ollamaArm { return (.external, shape) }
                return (.onDevice, nil)
            }
        case .unset:
            // "working Ollama arm, then explicit local-model preference, then stored OpenAI key, then on-device"
            if let shape = ollamaArm { return (.external, shape) }
            if localPreference { return (.onDevice, nil) }
            if openAIKey { return (.openAI, nil) }
            return (.onDevice, nil)
        }
    }

    /// The Ollama arm: nil when it does not route.
    var ollamaArm: ExpectedShape? {
        switch selection {
        case .none:
            return nil  // "needs a selected model tag"
        case .hostTag:
            // 1. joined, fresh, at least one model; else on-device (no other shape).
            let usable = joined.state == .joined && joined.fresh && joined.hasModels
            return usable ? .joined : nil
        case .tagOnly, .ownTag, .corruptHostTag:  // a corrupt host value degrades to own
            if endpoint == .servesTag { return .local }  // 2.
            if !onHomebase && own == .fresh { return .own }  // 3.
            return nil  // 4.
        }
    }

    /// On-device runs the explicit local-model preference, except when the radio says built-in.
    var expectedLocalModel: LocalModel {
        localPreference && radio != .onDevice ? .community(TableFixture.preferredModel) : .builtIn
    }
}

enum ExpectedShape: Equatable { case joined, local, own }
/// The contract's four families of route (`Route.name`), as the contract text names them.
enum Family: Equatable { case onDevice, external, openAI, anthropic }

/// The fixed values the table's facts are built from.
enum TableFixture {
    static let tag = "llama3.1:8b"
    static let preferredModel = "qwen2.5-1.5b-q4"
    static let endpointURL = "http://127.0.0.1:11434"
    static let joinedKey = SigningKey.generate().publicKey
    static let homebaseKey = SigningKey.generate().publicKey
    static let now: Int64 = 1_800_000_000_000
}
