import Foundation

/// One model the guest can run: where it comes from, what it needs, how it calls tools.
/// Decoded from `Resources/models.json` (keys are the property names).
public struct ModelSpec: Sendable, Equatable, Codable, Identifiable {
    /// Stable id used by the model store and the CLI (`qwen2.5-0.5b-instruct-q4_k_m`).
    public var id: String
    /// Display name.
    public var name: String
    /// Hugging Face repository id (`owner/name`); empty for models made locally.
    public var repo: String
    /// File inside the repository (a `.gguf` for runtime `gguf`).
    public var file: String
    public var runtime: RuntimeKind
    /// How this model writes tool calls in its text.
    public var toolFamily: ToolFamily
    /// Parameter count as its authors state it (`0.5B`).
    public var parameters: String
    /// Size on disk in bytes.
    public var sizeBytes: Int64
    /// Where `sizeBytes` comes from: `repo` (the repository's listing) or `estimate`.
    public var sizeSource: String
    /// Human size (`491 MB`).
    public var sizeLabel: String
    /// Context length the model was trained for.
    public var contextNominal: Int
    /// Context the guest actually asks for (memory on a laptop is the limit).
    public var contextUsable: Int
    /// RAM needed to run it at `contextUsable`, in bytes.
    public var minRAMBytes: Int64
    /// The repository needs a login and an accepted licence.
    public var gated: Bool
    /// Whether the model store may fetch it from a hub (false: made locally, see `notes`).
    public var downloadable: Bool
    /// Git revision to fetch (`main` until the store pins a commit on first download).
    public var revision: String
    /// Extra chat-template arguments (`enable_thinking: false`).
    public var chatTemplateArguments: [String: TemplateArgument]
    public var notes: String
}

/// A chat-template argument value: the templates only take booleans, integers and strings.
public enum TemplateArgument: Sendable, Equatable, Codable {
    case bool(Bool)
    case int(Int)
    case string(String)

    public init(from decoder: Decoder) throws {
        let value = try decoder.singleValueContainer()
        if let b = try? value.decode(Bool.self) { self = .bool(b) }
        else if let i = try? value.decode(Int.self) { self = .int(i) }
        else { self = .string(try value.decode(String.self)) }
    }

    public func encode(to encoder: Encoder) throws {
        var value = encoder.singleValueContainer()
        switch self {
        case .bool(let b): try value.encode(b)
        case .int(let i): try value.encode(i)
        case .string(let s): try value.encode(s)
        }
    }
}
