// The vocabulary every brain speaks: a chat request in, a stream of events out.
// Shapes follow OpenAI's Chat Completions, the lingua franca of the runtimes we drive.
import Wire

/// One turn of a conversation.
public struct ChatMessage: Sendable, Equatable, Codable {
    public enum Role: String, Sendable, Codable { case system, user, assistant, tool }
    public var role: Role
    /// The content in the order the client sent it: text and images interleaved.
    public var parts: [ContentPart]
    /// For `tool` messages: the call this result answers.
    public var toolCallID: String?
    /// For `assistant` messages that called tools.
    public var toolCalls: [ToolCall]

    /// The text parts joined; images are not in it (see `parts`, `images`).
    public var content: String {
        parts.reduce(into: "") { if case .text(let t) = $1 { $0 += t } }
    }
    public var images: [ImageData] { parts.compactMap { if case .image(let i) = $0 { i } else { nil } } }

    public init(role: Role, content: String, toolCallID: String? = nil, toolCalls: [ToolCall] = []) {
        self.init(role: role, parts: content.isEmpty ? [] : [.text(content)], toolCallID: toolCallID, toolCalls: toolCalls)
    }
    public init(role: Role, parts: [ContentPart], toolCallID: String? = nil, toolCalls: [ToolCall] = []) {
        self.role = role; self.parts = parts; self.toolCallID = toolCallID; self.toolCalls = toolCalls
    }
}

/// A piece of a message's content.
public enum ContentPart: Sendable, Equatable, Codable {
    case text(String)
    case image(ImageData)
}

/// An image as the client sent it: decoded bytes (never a URL: the Homebase fetches nothing).
public struct ImageData: Sendable, Equatable, Codable {
    /// "image/png", "image/jpeg", ...
    public var mediaType: String
    public var bytes: [UInt8]
    public init(mediaType: String, bytes: [UInt8]) { self.mediaType = mediaType; self.bytes = bytes }
}

// The values that cross the wire as they are (tool definitions and calls, tool choice, response
// format, log probabilities) are Wire's types: one type on both sides, nothing to convert. What the
// wire spells otherwise (roles, images, options, deltas) stays here and crosses in InferenceWire.

/// A tool the model may call; `parametersJSON` is a JSON Schema object, kept as text.
public typealias ToolDefinition = AppMessage.ToolDefinition

/// A complete tool call; `argumentsJSON` is the JSON object the model produced, as text.
public typealias ToolCall = AppMessage.ToolCall

/// Which tool the model must call, if any (OpenAI `tool_choice`).
public typealias ToolChoice = AppMessage.ToolChoice

/// How the answer must be shaped (OpenAI `response_format`, Ollama `format`); `schemaJSON` is a
/// JSON Schema object, kept as text.
public typealias ResponseFormat = AppMessage.ResponseFormat

/// Sampling and shaping options beyond `maxTokens` and `temperature`. `nil` means "not sent": the
/// engine's own default applies, never one of ours. `extra`: options this vocabulary has no name
/// for, as the client sent them (key → JSON text).
public typealias GenerationOptions = AppMessage.GenerationOptions

public struct ChatRequest: Sendable, Equatable {
    /// The model tag or id as the chosen runtime knows it.
    public var model: String
    public var messages: [ChatMessage]
    public var tools: [ToolDefinition]
    /// `nil`: not sent (the engine's default, `auto` when there are tools).
    public var toolChoice: ToolChoice?
    public var maxTokens: Int?
    /// `nil`: not sent; the engine's default applies.
    public var temperature: Double?
    public var options: GenerationOptions
    /// Text already shown to the reader for this answer: the provider continues it instead of
    /// starting over (a fallback after partial output). Sent as the start of the assistant turn.
    public var continuation: String?

    public init(model: String, messages: [ChatMessage], tools: [ToolDefinition] = [], toolChoice: ToolChoice? = nil,
                maxTokens: Int? = nil, temperature: Double? = nil, options: GenerationOptions = GenerationOptions(),
                continuation: String? = nil) {
        self.model = model; self.messages = messages; self.tools = tools; self.toolChoice = toolChoice
        self.maxTokens = maxTokens; self.temperature = temperature; self.options = options
        self.continuation = continuation
    }

    /// Bytes of image data in all messages (admission and size limits count these).
    public var imageBytes: Int { messages.reduce(0) { $0 + $1.images.reduce(0) { $0 + $1.bytes.count } } }
}

public struct Usage: Sendable, Equatable {
    public var promptTokens: Int
    public var completionTokens: Int
    public init(promptTokens: Int, completionTokens: Int) {
        self.promptTokens = promptTokens; self.completionTokens = completionTokens
    }
}

/// A piece of a tool call as the engine streams it: `index` says which call (several may be in
/// flight); `id` and `name` come once, usually first; `arguments` is the next piece of the JSON text.
public struct ToolCallDelta: Sendable, Equatable {
    public var index: Int
    public var id: String?
    public var name: String?
    public var arguments: String
    public init(index: Int, id: String? = nil, name: String? = nil, arguments: String = "") {
        self.index = index; self.id = id; self.name = name; self.arguments = arguments
    }
}

/// One generated token's log probability (OpenAI `logprobs.content[]`, Ollama `logprobs[]`), and
/// its likeliest alternatives at that position when the request asked for `topLogprobs`.
public typealias TokenLogprob = AppMessage.TokenLogprob

/// What a streaming provider yields, in order: any number of `.text`, `.reasoning`,
/// `.logprobs`, `.toolCallDelta` and `.toolCall`, then one `.done`. A tool call is streamed as its deltas and
/// then, once complete, as one `.toolCall`: a consumer takes the granularity it needs and ignores
/// the other (encoders of streamed APIs take deltas; agent loops take whole calls). A provider
/// that only learns whole calls emits `.toolCall` alone.
/// A stream that ends without `.done` is an interrupted answer, never a complete one.
public enum ChatEvent: Sendable, Equatable {
    case text(String)
    /// The model's thinking (`reasoning_content`, Ollama `thinking`, Anthropic thinking blocks).
    case reasoning(String)
    case toolCallDelta(ToolCallDelta)
    case toolCall(ToolCall)
    /// The log probabilities of the tokens just streamed (only when the request set `logprobs`):
    /// they follow the text they describe.
    case logprobs([TokenLogprob])
    case done(finishReason: String, usage: Usage?)
}
