import Foundation

/// The JSON body of `POST /v1/chat/completions`, in the dialect llama-server, vLLM and Ollama's
/// `/v1` accept:
///
///   {"model": "...", "stream": true, "stream_options": {"include_usage": true},
///    "messages": [{"role": "user", "content": "..."},
///                 {"role": "user", "content": [{"type": "text", "text": "..."},        (with images)
///                     {"type": "image_url", "image_url": {"url": "data:image/png;base64,..."}}]},
///                 {"role": "assistant", "content": "", "tool_calls": [{"id", "type": "function",
///                                                     "function": {"name", "arguments"}}]},
///                 {"role": "tool", "tool_call_id": "...", "content": "..."},
///                 {"role": "assistant", "content": "<continuation>"}],     (partial answer)
///    "max_tokens": 256, "temperature": 0.7,
///    "tools": [{"type": "function", "function": {"name", "description", "parameters": {...}}}],
///    "tool_choice": "auto" | "none" | "required",  (a named tool: "required" over it alone)
///    "stop": [...], "top_p", "top_k", "min_p", "seed", "presence_penalty", "frequency_penalty",
///    "repeat_penalty", "response_format": {"type": "json_object"} |
///        {"type": "json_schema", "json_schema": {"name", "schema", "strict"}},
///    "logprobs", "top_logprobs", ...extra}
///
/// Only what the request sets is written: an unset option is the engine's own default.
/// `top_k`, `min_p` and `repeat_penalty` are extensions llama-server, vLLM and Ollama's `/v1` read.
/// `contextLength` (Ollama's `num_ctx`) is not written: no OpenAI-compatible engine takes it per
/// request (llama-server fixes it at start with `--ctx-size` and ignores the key, vLLM with
/// `--max-model-len`, Ollama's `/v1` has no field for it); a prompt longer than the engine's
/// window is refused by the engine with its own error.
/// `extra` keys are merged as raw JSON; they never replace a key written from the request.
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
        // A named tool is sent as "required" over that tool alone: llama-server reads only the
        // string forms (an object is ignored with a warning: the call was not forced), and for
        // vLLM and Ollama the two say the same.
        var tools = request.tools
        var choice = request.toolChoice
        if case .function(let name) = choice, let only = tools.first(where: { $0.name == name }) {
            tools = [only]; choice = .required
        }
        if !tools.isEmpty { body["tools"] = try tools.map(tool) }
        if let c = choice { body["tool_choice"] = toolChoice(c) }
        try options(request.options, into: &body)
        let data = try JSONSerialization.data(withJSONObject: body, options: [.withoutEscapingSlashes])
        return [UInt8](data)
    }

    private static func options(_ o: GenerationOptions, into body: inout [String: Any]) throws {
        if !o.stop.isEmpty { body["stop"] = o.stop }
        if let v = o.topP { body["top_p"] = v }
        if let v = o.topK { body["top_k"] = v }
        if let v = o.minP { body["min_p"] = v }
        if let v = o.seed { body["seed"] = v }
        if let v = o.presencePenalty { body["presence_penalty"] = v }
        if let v = o.frequencyPenalty { body["frequency_penalty"] = v }
        if let v = o.repeatPenalty { body["repeat_penalty"] = v }
        if let f = o.responseFormat { body["response_format"] = try responseFormat(f) }
        if let v = o.logprobs { body["logprobs"] = v }
        if let v = o.topLogprobs { body["top_logprobs"] = v }
        for (key, text) in o.extra.sorted(by: { $0.key < $1.key }) where body[key] == nil {
            body[key] = try JSONText.value(text, "option \(key)")
        }
    }

    static func toolChoice(_ c: ToolChoice) -> Any {
        switch c {
        case .auto: "auto"
        case .none: "none"
        case .required: "required"
        case .function(let name): ["type": "function", "function": ["name": name]] as [String: Any]
        }
    }

    private static func responseFormat(_ f: ResponseFormat) throws -> [String: Any] {
        switch f {
        case .text: return ["type": "text"]
        case .jsonObject: return ["type": "json_object"]
        case .jsonSchema(let name, let schema, let strict):
            return ["type": "json_schema",
                    "json_schema": ["name": name, "schema": try JSONText.object(schema, "the schema of \(name)"),
                                    "strict": strict] as [String: Any]]
        }
    }

    private static func message(_ m: ChatMessage) -> [String: Any] {
        var out: [String: Any] = ["role": m.role.rawValue]
        if m.images.isEmpty {
            out["content"] = m.content
        } else {
            out["content"] = m.parts.map { p -> [String: Any] in
                switch p {
                case .text(let t): ["type": "text", "text": t]
                case .image(let i): ["type": "image_url", "image_url": ["url": dataURL(i)]]
                }
            }
        }
        if let id = m.toolCallID { out["tool_call_id"] = id }
        if !m.toolCalls.isEmpty {
            out["tool_calls"] = m.toolCalls.map { c in
                ["id": c.id, "type": "function", "function": ["name": c.name, "arguments": c.argumentsJSON]] as [String: Any]
            }
        }
        return out
    }

    /// `data:<media type>;base64,<bytes>`: the only image URL an engine is sent (it fetches nothing).
    static func dataURL(_ i: ImageData) -> String {
        "data:\(i.mediaType);base64," + Data(i.bytes).base64EncodedString()
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

/// JSON kept as text in the vocabulary (schemas, extra options), turned back into values.
enum JSONText {
    /// Any JSON value (fragments allowed: `"high"`, `3`, `true`).
    static func value(_ text: String, _ what: String) throws -> Any {
        guard let v = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) else {
            throw InferenceError.malformed("\(what) is not JSON")
        }
        return v
    }

    static func object(_ text: String, _ what: String) throws -> [String: Any] {
        guard let o = try value(text, what) as? [String: Any] else {
            throw InferenceError.malformed("\(what) is not a JSON object")
        }
        return o
    }
}
