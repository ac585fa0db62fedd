// The vocabulary every brain speaks: a chat request in, a stream of events out.
// Shapes follow OpenAI's Chat Completions, the lingua franca of the runtimes we drive.

/// One turn of a conversation.
public struct ChatMessage: Sendable, Equatable, Codable {
    public enum Role: String, Sendable, Codable { case system, user, assistant, tool }
    public var role: Role
    public var content: String
    /// For `tool` messages: the call this result answers.
    public var toolCallID: String?
    /// For `assistant` messages that called tools.
    public var toolCalls: [ToolCall]

    public init(role: Role, content: String, toolCallID: String? = nil, toolCalls: [ToolCall] = []) {
        self.role = role; self.content = content; self.toolCallID = toolCallID; self.toolCalls = toolCalls
    }
}

/// A tool the model may call; `parametersJSON` is a JSON Schema object, kept as text.
public struct ToolDefinition: Sendable, Equatable, Codable {
    public var name: String
    public var description: String
    public var parametersJSON: String
    public init(name: String, description: String, parametersJSON: String) {
        self.name = name; self.description = description; self.parametersJSON = parametersJSON
    }
}

/// A complete tool call; `argumentsJSON` is the JSON object the model produced, as text.
public struct ToolCall: Sendable, Equatable, Codable {
    public var id: String
    public var name: String
    public var argumentsJSON: String
    public init(id: String, name: String, argumentsJSON: String) {
        self.id = id; self.name = name; self.argumentsJSON = argumentsJSON
    }
}

public struct ChatRequest: Sendable, Equatable {
    /// The model tag or id as the chosen runtime knows it.
    public var model: String
    public var messages: [ChatMessage]
    public var tools: [ToolDefinition]
    public var maxTokens: Int?
    public var temperature: Double?
    /// Text already shown to the reader for this answer: the provider continues it instead of
    /// starting over (a fallback after partial output). Sent as the start of the assistant turn.
    public var continuation: String?

    public init(model: String, messages: [ChatMessage], tools: [ToolDefinition] = [],
                maxTokens: Int? = nil, temperature: Double? = nil, continuation: String? = nil) {
        self.model = model; self.messages = messages; self.tools = tools
        self.maxTokens = maxTokens; self.temperature = temperature; self.continuation = continuation
    }
}

public struct Usage: Sendable, Equatable {
    public var promptTokens: Int
    public var completionTokens: Int
    public init(promptTokens: Int, completionTokens: Int) {
        self.promptTokens = promptTokens; self.completionTokens = completionTokens
    }
}

/// What a streaming provider yields, in order: any number of `.text`/`.toolCall`, then one `.done`.
/// A stream that ends without `.done` is an interrupted answer, never a complete one.
public enum ChatEvent: Sendable, Equatable {
    case text(String)
    case toolCall(ToolCall)
    case done(finishReason: String, usage: Usage?)
}
