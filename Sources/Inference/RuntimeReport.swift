// What a runtime probe found: either a report on an engine that answered like one, or the step
// that failed and what the user should do about it.

/// The engine families the probe recognises.
public enum RuntimeKind: String, Sendable, Equatable, Codable {
    case ollama
    case llamaServer = "llama-server"
    case vllm
    /// Any other server with `GET /v1/models` and `POST /v1/chat/completions`.
    case openAICompatible = "openai-compatible"
}

public enum ModelCapability: String, Sendable, Hashable, Codable {
    case completion, tools, vision, embedding
}

/// One model an engine serves.
public struct RuntimeModel: Sendable, Equatable, Codable {
    /// The id to put in requests (`qwen3:0.6b`, `Qwen/Qwen2.5-0.5B-Instruct`).
    public var tag: String
    public var family: String?
    /// As the engine spells it ("751.63M", "7.6B").
    public var parameterSize: String?
    public var quantization: String?
    public var contextLength: Int?
    /// nil when the engine does not say (plain OpenAI-compatible servers and vLLM).
    public var capabilities: Set<ModelCapability>?

    public init(tag: String, family: String? = nil, parameterSize: String? = nil, quantization: String? = nil,
                contextLength: Int? = nil, capabilities: Set<ModelCapability>? = nil) {
        self.tag = tag; self.family = family; self.parameterSize = parameterSize
        self.quantization = quantization; self.contextLength = contextLength; self.capabilities = capabilities
    }

    /// Can chat, or might: unknown capabilities count, and the trial settles it.
    public var mayComplete: Bool { capabilities?.contains(.completion) ?? true }

    /// The engine says it makes embeddings (kept and advertised for them, even without chat).
    public var mayEmbed: Bool { capabilities?.contains(.embedding) == true }
}

/// The one-token trial completion.
public struct TrialOutcome: Sendable, Equatable {
    public var model: String
    /// The failure, nil when the trial answered with a complete stream.
    public var failure: InferenceError?
    /// From sending the request to `.done` (or the failure).
    public var elapsed: Duration

    public var passed: Bool { failure == nil }
}

public struct RuntimeReport: Sendable, Equatable {
    public enum Verdict: String, Sendable, Equatable {
        /// Answered the trial: safe to store as a verified endpoint.
        case ready
        /// Reachable, but serves no model at all.
        case noModels = "no-models"
        /// Models, but none that can chat (embedding models only).
        case noCompletionModel = "no-completion-model"
        /// A chat model exists but the trial completion failed.
        case trialFailed = "trial-failed"
    }

    /// The URL probed, as given.
    public var baseURL: String
    public var kind: RuntimeKind
    public var version: String?
    public var models: [RuntimeModel]
    /// nil when there was no model to try.
    public var trial: TrialOutcome?
    public var verdict: Verdict
    /// What to do, for every verdict but `.ready`.
    public var advice: String?
}

/// Why an engine was refused before any report could be made.
public struct ProbeFailure: Sendable, Equatable, CustomStringConvertible {
    public enum Step: String, Sendable, Equatable {
        /// Nothing answered.
        case connect
        /// Something answered, but not an engine of a known kind (or of the expected kind).
        case identify
        /// The engine said it is not ready (llama-server still loading, auth required).
        case health
        /// The model list could not be read.
        case models
    }

    public var step: Step
    /// One sentence saying what failed and what to do; no secrets.
    public var message: String

    public var description: String { "\(step.rawValue): \(message)" }
}

public enum ProbeResult: Sendable, Equatable {
    case report(RuntimeReport)
    case failure(ProbeFailure)

    public var report: RuntimeReport? { if case .report(let r) = self { r } else { nil } }
    public var failure: ProbeFailure? { if case .failure(let f) = self { f } else { nil } }
}
