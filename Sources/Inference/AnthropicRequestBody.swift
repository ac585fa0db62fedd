import Foundation

/// The JSON body of Anthropic's `POST /v1/messages`:
///
///   {"model": "...", "max_tokens": 4096, "stream": true,
///    "system": "<all system messages, joined by a blank line>",
///    "messages": [{"role": "user", "content": [{"type": "text", "text": "..."}]},
///                 {"role": "assistant", "content": [{"type": "text", "text": "..."},
///                     {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {...}}]},
///                 {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
///                                               "content": "..."}]},
///                 {"role": "assistant", "content": "<continuation>"}],       (partial answer)
///    "temperature": 0.7,
///    "tools": [{"name", "description", "input_schema": {...}}]}
///
/// Consecutive turns of one role are merged into one message (tool results of several calls
/// belong in the single user turn that follows the assistant's calls).
enum AnthropicRequestBody {
    /// `max_tokens` is required by the API; this is used when the request sets none.
    static let defaultMaxTokens = 4096

    static func encode(_ request: ChatRequest, stream: Bool = true) throws -> [UInt8] {
        var system: [String] = []
        var turns: [(role: String, blocks: [[String: Any]])] = []
        for m in request.messages {
            let role: String
            var blocks: [[String: Any]] = []
            switch m.role {
            case .system:
                system.append(m.content)
                continue
            case .user:
                role = "user"
                blocks.append(["type": "text", "text": m.content])
            case .tool:
                role = "user"
                blocks.append(["type": "tool_result", "tool_use_id": m.toolCallID ?? "", "content": m.content])
            case .assistant:
                role = "assistant"
                if !m.content.isEmpty { blocks.append(["type": "text", "text": m.content]) }
                for c in m.toolCalls {
                    blocks.append(["type": "tool_use", "id": c.id, "name": c.name, "input": try object(c.argumentsJSON, c.name)])
                }
            }
            if blocks.isEmpty { continue }
            if let last = turns.last, last.role == role {
                turns[turns.count - 1].blocks += blocks
            } else {
                turns.append((role, blocks))
            }
        }
        var messages: [[String: Any]] = turns.map { ["role": $0.role, "content": $0.blocks] }
        if let partial = request.continuation {
            // Prefill: the API refuses a final assistant turn that ends in whitespace.
            var p = Substring(partial)
            while let l = p.last, l.isWhitespace { p.removeLast() }
            if !p.isEmpty { messages.append(["role": "assistant", "content": String(p)]) }
        }
        var body: [String: Any] = ["model": request.model, "stream": stream, "messages": messages,
                                   "max_tokens": request.maxTokens ?? defaultMaxTokens]
        if !system.isEmpty { body["system"] = system.joined(separator: "\n\n") }
        if let t = request.temperature { body["temperature"] = t }
        if !request.tools.isEmpty {
            body["tools"] = try request.tools.map { t in
                ["name": t.name, "description": t.description, "input_schema": try object(t.parametersJSON, t.name)] as [String: Any]
            }
        }
        return [UInt8](try JSONSerialization.data(withJSONObject: body, options: [.withoutEscapingSlashes]))
    }

    /// A JSON object given as text (tool schemas, tool-call arguments); empty text is `{}`.
    private static func object(_ text: String, _ name: String) throws -> [String: Any] {
        if text.trimmingCharacters(in: .whitespaces).isEmpty { return [:] }
        guard let o = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw InferenceError.malformed("the JSON of tool \(name) is not an object")
        }
        return o
    }
}
