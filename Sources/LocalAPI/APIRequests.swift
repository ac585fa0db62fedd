import Foundation
import Inference

/// A chat request read from either API, with how it wants its answer.
struct APIChatRequest: Sendable {
    var chat: ChatRequest
    var stream: Bool
    /// OpenAI `stream_options.include_usage`: a last chunk with `usage` and no choices.
    var includeUsage: Bool
}

/// `POST /v1/chat/completions`:
///   {"model", "messages": [{"role", "content": "..." | [{"type":"text","text"} |
///      {"type":"image_url","image_url":{"url":"data:..."}}] | null,
///    "tool_calls": [{"id", "type":"function", "function": {"name", "arguments": "<json>"}}],
///    "tool_call_id"}], "tools", "tool_choice", "stream", "stream_options": {"include_usage"},
///    "max_tokens" | "max_completion_tokens", "temperature", "top_p", "stop" (string or list),
///    "seed", "presence_penalty", "frequency_penalty", "response_format", "logprobs",
///    "top_logprobs", and llama.cpp's "top_k", "min_p", "repeat_penalty"}
/// Plumbing keys (`plumbing`) are consumed; every other key is carried in `options.extra`, as sent.
enum OpenAIRequestReader {
    /// Keys about the transport or the client's bookkeeping, not the answer.
    /// (`parallel_tool_calls` is not: llama-server's grammar reads it, so it is carried.)
    static let plumbing: Set<String> = ["stream", "stream_options", "user", "store", "metadata", "n", "service_tier"]
    /// Message keys read or consumed (`name` labels a participant; earlier reasoning is not re-sent).
    static let messageKeys: Set<String> = ["role", "content", "tool_calls", "tool_call_id", "name", "refusal",
                                           "reasoning_content", "reasoning", "annotations", "audio", "function_call"]

    static func read(_ body: [UInt8]) throws(LocalAPIError) -> APIChatRequest {
        var o = try JSONReading.object(body)
        guard let list = o.removeValue(forKey: "messages") as? [JSONObject], !list.isEmpty else { throw .badRequest("no messages") }
        var messages: [ChatMessage] = []
        for m in list {
            let (role, calls) = try MessageReading.roleAndCalls(m, known: messageKeys) { $0 as? String }
            messages.append(ChatMessage(role: role, parts: try ContentReading.openAI(m["content"]),
                                        toolCallID: m["tool_call_id"] as? String, toolCalls: calls))
        }
        if let n = o["n"], JSONReading.int(n) != 1 { throw .badRequest("n must be 1 (one answer per request)") }
        var chat = ChatRequest(model: o.removeValue(forKey: "model") as? String ?? "", messages: messages)
        chat.tools = try JSONReading.tools(o.removeValue(forKey: "tools")).map {
            ToolDefinition(name: $0.name, description: $0.description, parametersJSON: $0.parametersJSON)
        }
        chat.toolChoice = try OptionReading.toolChoice(o.removeValue(forKey: "tool_choice"))
        let completion = try OptionReading.int(o.removeValue(forKey: "max_completion_tokens"), "max_completion_tokens")
        let legacy = try OptionReading.int(o.removeValue(forKey: "max_tokens"), "max_tokens")
        chat.maxTokens = completion ?? legacy
        chat.temperature = try OptionReading.double(o.removeValue(forKey: "temperature"), "temperature")
        var opts = GenerationOptions()
        opts.stop = try OptionReading.stop(o.removeValue(forKey: "stop"))
        opts.topP = try OptionReading.double(o.removeValue(forKey: "top_p"), "top_p")
        opts.topK = try OptionReading.int(o.removeValue(forKey: "top_k"), "top_k")
        opts.minP = try OptionReading.double(o.removeValue(forKey: "min_p"), "min_p")
        opts.seed = try OptionReading.int(o.removeValue(forKey: "seed"), "seed")
        opts.presencePenalty = try OptionReading.double(o.removeValue(forKey: "presence_penalty"), "presence_penalty")
        opts.frequencyPenalty = try OptionReading.double(o.removeValue(forKey: "frequency_penalty"), "frequency_penalty")
        opts.repeatPenalty = try OptionReading.double(o.removeValue(forKey: "repeat_penalty"), "repeat_penalty")
        opts.responseFormat = try OptionReading.responseFormat(o.removeValue(forKey: "response_format"))
        opts.logprobs = try OptionReading.bool(o.removeValue(forKey: "logprobs"), "logprobs")
        opts.topLogprobs = try OptionReading.int(o.removeValue(forKey: "top_logprobs"), "top_logprobs")
        let streamValue = o["stream"], streamOptions = o["stream_options"] as? JSONObject
        for (key, value) in o where !plumbing.contains(key) && !(value is NSNull) {
            opts.extra[key] = JSONReading.fragment(value)
        }
        chat.options = opts
        return APIChatRequest(chat: chat, stream: JSONReading.bool(streamValue) ?? false,
                              includeUsage: JSONReading.bool(streamOptions?["include_usage"]) ?? false)
    }
}

/// `POST /api/chat` (Ollama):
///   {"model", "messages": [{"role", "content", "images": ["<base64>"], "thinking",
///    "tool_calls": [{"function": {"name", "arguments": {...}}}], "tool_name"}], "tools",
///    "stream" (default true), "format": "json" | {schema}, "think": bool | "low" | "medium" | "high",
///    "logprobs": bool, "top_logprobs": n (Ollama 0.12),
///    "keep_alive", "options": {"temperature", "top_p", "top_k", "min_p", "seed", "stop",
///    "num_predict", "num_ctx", "repeat_penalty", "presence_penalty", "frequency_penalty", ...}}
/// An option or key with no meaning here is named in a 400 (`OllamaOptions`). Tool results are
/// paired with their calls (`ToolResultPairing`); `tool_name` is read for that and not kept.
enum OllamaRequestReader {
    static let keys: Set<String> = ["model", "messages", "tools", "stream", "format", "think", "keep_alive", "options",
                                    "logprobs", "top_logprobs"]
    static let messageKeys: Set<String> = ["role", "content", "images", "tool_calls", "tool_call_id", "tool_name", "thinking"]

    static func read(_ body: [UInt8]) throws(LocalAPIError) -> APIChatRequest {
        let o = try JSONReading.object(body)
        if let k = o.keys.sorted().first(where: { !keys.contains($0) }) {
            throw .badRequest("unknown field \"\(k.prefix(40))\"")
        }
        guard let list = o["messages"] as? [JSONObject] else { throw .badRequest("no messages") }
        var messages: [ChatMessage] = []
        var pairing = ToolResultPairing([])
        for m in list {
            // Ollama sends a call's arguments as an object; a string is taken as it is.
            let (role, calls) = try MessageReading.roleAndCalls(m, known: messageKeys) {
                $0 is String ? $0 as? String : JSONReading.text($0)
            }
            var parts = try ContentReading.openAI(m["content"])
            switch m["images"] {
            case nil, is NSNull: break
            case let images as [String]: parts += try images.map { i throws(LocalAPIError) in .image(try ContentReading.base64Image(i)) }
            default: throw .badRequest("images must be a list of base64 strings")
            }
            var callID = m["tool_call_id"] as? String
            if role == .tool, callID == nil { callID = pairing.answer(name: m["tool_name"] as? String) }
            if role == .assistant { pairing = ToolResultPairing(calls) }
            messages.append(ChatMessage(role: role, parts: parts, toolCallID: callID, toolCalls: calls))
        }
        var chat = ChatRequest(model: o["model"] as? String ?? "", messages: messages)
        chat.tools = try JSONReading.tools(o["tools"]).map {
            ToolDefinition(name: $0.name, description: $0.description, parametersJSON: $0.parametersJSON)
        }
        var opts = GenerationOptions()
        try OllamaOptions.read(o["options"], into: &chat, &opts)
        opts.responseFormat = try OllamaOptions.format(o["format"])
        try OllamaOptions.think(o["think"], into: &opts)
        opts.logprobs = try OptionReading.bool(o["logprobs"], "logprobs")
        opts.topLogprobs = try OptionReading.int(o["top_logprobs"], "top_logprobs")
        chat.options = opts
        return APIChatRequest(chat: chat, stream: JSONReading.bool(o["stream"]) ?? true, includeUsage: true)
    }
}

/// Ollama's tool results carry no call id (at most the tool's name): each is paired with the
/// first unanswered call of the assistant turn before it, by name when given, else in order, so
/// an engine or cloud that needs `tool_call_id` gets it.
struct ToolResultPairing {
    private var open: [ToolCall]
    init(_ calls: [ToolCall]) { open = calls }

    mutating func answer(name: String?) -> String? {
        guard let at = open.firstIndex(where: { name == nil || $0.name == name }) else { return nil }
        return open.remove(at: at).id
    }
}

/// The start of one message, the same in both APIs: no key outside `known`, the role, the
/// assistant's tool calls. `arguments` renders a call's `function.arguments` as JSON text
/// (nil: none, `{}`); the APIs differ only there.
enum MessageReading {
    static func roleAndCalls(_ m: JSONObject, known: Set<String>,
                             arguments: (Any) -> String?) throws(LocalAPIError) -> (ChatMessage.Role, [ToolCall]) {
        if let k = m.keys.sorted().first(where: { !known.contains($0) }) {
            throw .badRequest("unknown message field \"\(k.prefix(40))\"")
        }
        let role = ChatMessage.Role(rawValue: try JSONReading.role(m["role"]))!
        var calls: [ToolCall] = []
        for (i, c) in ((m["tool_calls"] as? [JSONObject]) ?? []).enumerated() {
            let f = c["function"] as? JSONObject ?? [:]
            guard let name = f["name"] as? String else { throw .badRequest("a tool call has no function name") }
            calls.append(ToolCall(id: c["id"] as? String ?? "call_\(i)", name: name,
                                  argumentsJSON: f["arguments"].flatMap(arguments) ?? "{}"))
        }
        return (role, calls)
    }
}
