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
///    "temperature": 0.7, "top_p", "top_k", "stop_sequences": [...],
///    "tools": [{"name", "description", "input_schema": {...}}],
///    "tool_choice": {"type": "auto" | "none" | "any"} | {"type": "tool", "name"}}
///
/// Images are `{"type": "image", "source": {"type": "base64", "media_type", "data"}}` blocks, in
/// the client's order. An option the Messages API has no name for (min_p, seed, penalties,
/// response_format, logprobs, extra keys) is refused with `.unsupported` naming it, never dropped.
/// `contextLength` is not sent, as for every engine (the model's window is fixed).
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
                blocks += m.parts.map(block)
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
        try options(request.options, into: &body)
        if let c = request.toolChoice { body["tool_choice"] = toolChoice(c) }
        if !request.tools.isEmpty {
            body["tools"] = try request.tools.map { t in
                ["name": t.name, "description": t.description, "input_schema": try object(t.parametersJSON, t.name)] as [String: Any]
            }
        }
        return [UInt8](try JSONSerialization.data(withJSONObject: body, options: [.withoutEscapingSlashes]))
    }

    private static func block(_ p: ContentPart) -> [String: Any] {
        switch p {
        case .text(let t): ["type": "text", "text": t]
        case .image(let i):
            ["type": "image", "source": ["type": "base64", "media_type": i.mediaType,
                                         "data": Data(i.bytes).base64EncodedString()] as [String: Any]]
        }
    }

    static func toolChoice(_ c: ToolChoice) -> [String: Any] {
        switch c {
        case .auto: ["type": "auto"]
        case .none: ["type": "none"]
        case .required: ["type": "any"]
        case .function(let name): ["type": "tool", "name": name]
        }
    }

    private static func options(_ o: GenerationOptions, into body: inout [String: Any]) throws {
        if !o.stop.isEmpty { body["stop_sequences"] = o.stop }
        if let v = o.topP { body["top_p"] = v }
        if let v = o.topK { body["top_k"] = v }
        var refused: [String] = []
        if o.minP != nil { refused.append("min_p") }
        if o.seed != nil { refused.append("seed") }
        if o.presencePenalty != nil { refused.append("presence_penalty") }
        if o.frequencyPenalty != nil { refused.append("frequency_penalty") }
        if o.repeatPenalty != nil { refused.append("repeat_penalty") }
        if let f = o.responseFormat, f != .text { refused.append("response_format") }
        if o.logprobs == true { refused.append("logprobs") }
        if o.topLogprobs != nil { refused.append("top_logprobs") }
        refused += o.extra.keys.sorted()
        guard refused.isEmpty else {
            throw InferenceError.unsupported("Anthropic's Messages API takes no \(refused.joined(separator: ", "))")
        }
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
