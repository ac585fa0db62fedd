import Inference

/// A chat request read from either API, with how it wants its answer.
struct APIChatRequest: Sendable {
    var chat: ChatRequest
    var stream: Bool
    /// OpenAI `stream_options.include_usage`: a last chunk with `usage` and no choices.
    var includeUsage: Bool
}

/// `POST /v1/chat/completions`:
///   {"model", "messages": [{"role", "content": "..." | [{"type":"text","text"}] | null,
///    "tool_calls": [{"id", "type":"function", "function": {"name", "arguments": "<json>"}}],
///    "tool_call_id"}], "tools", "stream", "stream_options": {"include_usage"},
///    "max_tokens" | "max_completion_tokens", "temperature"}
enum OpenAIRequestReader {
    static func read(_ body: [UInt8]) throws(LocalAPIError) -> APIChatRequest {
        let o = try JSONReading.object(body)
        guard let list = o["messages"] as? [JSONObject], !list.isEmpty else { throw .badRequest("no messages") }
        var messages: [ChatMessage] = []
        for m in list {
            let role = ChatMessage.Role(rawValue: try JSONReading.role(m["role"]))!
            var calls: [ToolCall] = []
            for (i, c) in ((m["tool_calls"] as? [JSONObject]) ?? []).enumerated() {
                let f = c["function"] as? JSONObject ?? [:]
                guard let name = f["name"] as? String else { throw .badRequest("a tool call has no function name") }
                calls.append(ToolCall(id: c["id"] as? String ?? "call_\(i)", name: name,
                                      argumentsJSON: f["arguments"] as? String ?? "{}"))
            }
            messages.append(ChatMessage(role: role, content: try JSONReading.content(m["content"]),
                                        toolCallID: m["tool_call_id"] as? String, toolCalls: calls))
        }
        let tools = try JSONReading.tools(o["tools"]).map { ToolDefinition(name: $0.name, description: $0.description, parametersJSON: $0.parametersJSON) }
        let chat = ChatRequest(model: o["model"] as? String ?? "", messages: messages, tools: tools,
                               maxTokens: JSONReading.int(o["max_completion_tokens"]) ?? JSONReading.int(o["max_tokens"]),
                               temperature: JSONReading.double(o["temperature"]))
        let streamOptions = o["stream_options"] as? JSONObject
        return APIChatRequest(chat: chat, stream: JSONReading.bool(o["stream"]) ?? false,
                              includeUsage: JSONReading.bool(streamOptions?["include_usage"]) ?? false)
    }
}

/// `POST /api/chat` (Ollama):
///   {"model", "messages": [{"role", "content", "tool_calls": [{"function": {"name",
///    "arguments": {...}}}]}], "tools", "stream" (default true), "options": {"temperature", "num_predict"}}
enum OllamaRequestReader {
    static func read(_ body: [UInt8]) throws(LocalAPIError) -> APIChatRequest {
        let o = try JSONReading.object(body)
        guard let list = o["messages"] as? [JSONObject] else { throw .badRequest("no messages") }
        var messages: [ChatMessage] = []
        for m in list {
            let role = ChatMessage.Role(rawValue: try JSONReading.role(m["role"]))!
            var calls: [ToolCall] = []
            for (i, c) in ((m["tool_calls"] as? [JSONObject]) ?? []).enumerated() {
                let f = c["function"] as? JSONObject ?? [:]
                guard let name = f["name"] as? String else { throw .badRequest("a tool call has no function name") }
                let args = f["arguments"].map { $0 is String ? $0 as! String : JSONReading.text($0) } ?? "{}"
                calls.append(ToolCall(id: c["id"] as? String ?? "call_\(i)", name: name, argumentsJSON: args))
            }
            messages.append(ChatMessage(role: role, content: try JSONReading.content(m["content"]),
                                        toolCallID: m["tool_call_id"] as? String, toolCalls: calls))
        }
        let options = o["options"] as? JSONObject
        let tools = try JSONReading.tools(o["tools"]).map { ToolDefinition(name: $0.name, description: $0.description, parametersJSON: $0.parametersJSON) }
        let predict = JSONReading.int(options?["num_predict"]).flatMap { $0 > 0 ? $0 : nil }
        let chat = ChatRequest(model: o["model"] as? String ?? "", messages: messages, tools: tools,
                               maxTokens: predict, temperature: JSONReading.double(options?["temperature"]))
        return APIChatRequest(chat: chat, stream: JSONReading.bool(o["stream"]) ?? true, includeUsage: true)
    }
}
