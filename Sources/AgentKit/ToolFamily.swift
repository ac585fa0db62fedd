import Inference

/// How a model family writes tool calls into its text.
///
/// | family  | a call looks like |
/// |---------|-------------------|
/// | hermes  | `<tool_call>{"name": "f", "arguments": {...}}</tool_call>` (Qwen, Hermes) |
/// | llama3  | `{"name": "f", "parameters": {...}}` as the whole message, or after `<|python_tag|>` |
/// | mistral | `[TOOL_CALLS][{"name": "f", "arguments": {...}}, ...]` |
/// | generic | any of the above: the fallback for models of unknown habits |
///
/// A bare JSON object counts as a call only at the start of the message (or right after another
/// call), so that JSON inside prose stays prose.
public enum ToolFamily: String, Sendable, Equatable, Codable, CaseIterable {
    case hermes, llama3, mistral, generic

    /// The markers that open a call in this family's text.
    var markers: [CallMarker] {
        switch self {
        case .hermes: [.hermes]
        case .llama3: [.pythonTag]
        case .mistral: [.mistral]
        case .generic: [.hermes, .pythonTag, .mistral]
        }
    }

    /// Whether a JSON object at the start of the message is a call.
    var bareJSONAtStart: Bool { self == .llama3 || self == .generic }
}

/// The literal openers of tagged calls.
enum CallMarker: String, Sendable, CaseIterable {
    /// Closed by `</tool_call>`; the body is one JSON object.
    case hermes = "<tool_call>"
    /// Followed by one JSON object (or, for Llama's built-in tools, Python, which we refuse).
    case pythonTag = "<|python_tag|>"
    /// Followed by a JSON array of calls (or one object).
    case mistral = "[TOOL_CALLS]"

    static let hermesClose = "</tool_call>"
}

/// What the incremental parser finds in a model's text.
public enum ParsedEvent: Sendable, Equatable {
    /// Text around calls, in order; never empty.
    case text(String)
    /// A complete, well-formed call with canonical (sorted-key) JSON arguments.
    case toolCall(ToolCall)
    /// A call the model began but wrote wrong: the agent answers it with a tool error.
    /// `name` when it could be read; `raw` is the call's text as written.
    case malformed(reason: String, name: String?, raw: String)
}
