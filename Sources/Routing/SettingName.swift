import Signing

/// The routing settings, by the names `guest settings get|set` uses.
///
/// Values are stored as raw text and interpreted only by `Router.resolve()`, so a corrupt or
/// future value degrades there (see Router.swift) instead of failing a read. `validate` is for
/// user input only: it refuses what `set` would store wrongly and says what is expected.
public enum SettingName: String, Sendable, CaseIterable {
    /// The model-source radio: `on-device` (built-in) | `community` (a downloaded local model)
    /// | `external`. Unset: derived (see the contract). A legacy stored `openai` still routes.
    case modelSource = "model.source"
    /// The external runtime dropdown: `ollama` (the default when unset) | `openai` | `claude`.
    case externalRuntime = "external.runtime"
    /// The Ollama arm's selected model tag, e.g. `llama3.1:8b`.
    case ollamaModel = "ollama.model"
    /// Whose Homebase serves the tag: `own`, or another account's host key (64 hex digits).
    case ollamaHost = "ollama.host"
    /// The explicit local-model preference: the id of a downloaded model.
    case localModel = "local.model"
    /// The model requests name on OpenAI; unset keeps the caller's.
    case openAIModel = "openai.model"
    /// The model requests name on Anthropic; unset keeps the caller's.
    case claudeModel = "claude.model"
    /// Whether a request with tools may go to the chosen brain off this device: `on` (the
    /// default when unset: the model's turns travel, tool execution stays here) | `off` (the old
    /// rule: every request with tools answers on-device).
    case toolsRemote = "tools.remote"
    /// The warm floor (#24): `on` (the default when unset) starts the on-device engine beside a
    /// request that leaves for a Homebase, and `guest serve` keeps it running, so a fallback finds
    /// it warm; it holds the model in memory (about the GGUF file's size) | `off`: started on first use.
    case engineWarm = "engine.warm"
    /// How the frames of requests to a Homebase are padded (SPEC 7, "Request shaping"; #22):
    /// `off` | `padded` (the default when unset) | `cadence`.
    case requestShaping = "request.shaping"

    /// What the setting takes, for help text and error messages.
    public var expected: String {
        switch self {
        case .modelSource: "one of on-device, community, external"
        case .externalRuntime: "one of ollama, openai, claude"
        case .ollamaHost: "own, or a host key of 64 hex digits"
        case .toolsRemote: "one of on, off (default on)"
        case .engineWarm: "one of on, off (default on: the on-device engine runs beside Homebase requests, holding the model in memory)"
        case .requestShaping: "one of off, padded, cadence (default padded: how much of a request's size the relay sees)"
        case .ollamaModel, .localModel, .openAIModel, .claudeModel:
            "a model name of 1 to \(SettingName.maxModelNameLength) characters, no spaces or control characters"
        }
    }

    /// What an unset value means, when it means a value (`guest settings get` shows it).
    public var unsetMeans: String? {
        switch self {
        case .toolsRemote, .engineWarm: "on"
        case .requestShaping: "padded"
        default: nil
        }
    }

    /// Longest model name accepted from user input (Ollama tags are far shorter).
    public static let maxModelNameLength = 256

    /// The canonical form of `input` for this setting, or `.invalidSettingValue`.
    /// Choice values are trimmed and lowercased; `on-device` also accepts `ondevice`.
    public func validate(_ input: String) throws(RoutingError) -> String {
        let trimmed = input.trimmingWhitespace()
        let lower = trimmed.lowercased()
        let accepted: String?
        switch self {
        case .modelSource:
            // `openai` is a legacy value: still routed when found stored, never written anew.
            accepted = ["on-device": "on-device", "ondevice": "on-device", "community": "community",
                        "external": "external"][lower]
        case .externalRuntime:
            accepted = ["ollama", "openai", "claude"].contains(lower) ? lower : nil
        case .ollamaHost:
            accepted = lower == "own" ? "own" : PublicKey(hex: trimmed)?.hex
        case .toolsRemote, .engineWarm:
            accepted = ["on", "off"].contains(lower) ? lower : nil
        case .requestShaping:
            accepted = ["off", "padded", "cadence"].contains(lower) ? lower : nil
        case .ollamaModel, .localModel, .openAIModel, .claudeModel:
            let ok = !trimmed.isEmpty && trimmed.count <= SettingName.maxModelNameLength
                && trimmed.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value != 0x7f }
            accepted = ok ? trimmed : nil
        }
        guard let accepted else { throw .invalidSettingValue(name: rawValue, expected: expected) }
        return accepted
    }
}

extension RoutingSettings {
    /// `engine.warm`: anything but `off` (unset, a corrupt value) keeps the warm floor on.
    public var warmFloor: Bool { self[.engineWarm]?.trimmingWhitespace().lowercased() != "off" }

    /// `request.shaping` as stored, lowercased; unset: `padded`. (The level is Courier's
    /// `RequestShaping`: a value it does not know reads as `padded` there.)
    public var requestShaping: String { self[.requestShaping]?.trimmingWhitespace().lowercased() ?? "padded" }
}

/// The routing settings as stored: raw text, nil when never set.
public struct RoutingSettings: Sendable, Equatable {
    public var values: [SettingName: String]

    public init(_ values: [SettingName: String] = [:]) { self.values = values }

    public subscript(name: SettingName) -> String? {
        get { values[name] }
        set { values[name] = newValue }
    }
}

extension String {
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        return String(scalars[first...last])
    }
}
