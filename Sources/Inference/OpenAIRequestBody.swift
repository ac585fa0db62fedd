import Foundation

/// The JSON body of `POST /v1/chat/completions`:
///
///   {"model": "...", "stream": true, "stream_options": {"include_usage": true},
///    "messages": [{"role": "user", "content": "..."},
///                 {"role": "assistant", "content": "", "tool_calls": [{"id", "type": "function",
///                                                     "function": {"name", "arguments"}}]},
///                 {"role": "tool", "tool_call_id": "...", "content": "..."},
///                 {"role": "assistant", "content": "<continuation>"}],     (partial answer)
///    "max_tokens": 256, "temperature": 0.7,
///    "tools": [{"type": "function", "function": {"name", "description", "parameters": {...}}}]}
enum OpenAIRequestBody {
    static func encode(_ request: ChatRequest, stream: Bool = true) throws -> [UInt8] {
        var messages = request.messages.map(message)
        if let partial = request.continuation, !partial.isEmpty {
            // Servers that support prefill (llama-server, vLLM, Ollama) continue this turn.
            messages.append(["role": "assistant", "content": partial])
        }
        var body: [String: Any] = ["model": request.model, "stream": stream, "messages": messages]
        if stream { body["stream_options"] = ["include_usage": true] }
        if let m = request.maxTokens { body["max_tokens"] = m }
        if let t = request.temperature { body["temperature"] = t }
        if !request.tools.isEmpty { body["tools"] = try request.tools.map(tool) }
        let data = try JSONSerialization.data(withJSONObject: body, options: [.withoutEscapingSlashes])
        return [UInt8](data)
    }

    private static func message(_ m: ChatMessage) -> [String: Any] {
        var out: [String: Any] = ["role": m.role.rawValue, "content": m.content]
        if let id = m.toolCallID { out["tool_call_id"] = id }
        if !m.toolCalls.isEmpty {
            out["tool_calls"] = m.toolCalls.map { c in
                ["id": c.id, "type": "function", "function": ["name": c.name, "arguments": c.argumentsJSON]] as [String: Any]
            }
        }
        return out
    }

    private static func tool(_ t: ToolDefinition) throws -> [String: Any] {
        guard let schema = try? JSONSerialization.jsonObject(with: Data(t.parametersJSON.utf8)),
              schema is [String: Any] else {
            throw InferenceError.malformed("the parameters of tool \(t.name) are not a JSON object")
        }
        return ["type": "function",
                "function": ["name": t.name, "description": t.description, "parameters": schema] as [String: Any]]
    }
}
