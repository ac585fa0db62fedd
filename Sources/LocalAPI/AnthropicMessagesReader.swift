import Foundation
import Inference

/// `POST /v1/messages` (Anthropic Messages) into a `ChatRequest`:
///   {"model", "max_tokens", "system": "..." | [{"type":"text","text"}],
///    "messages": [{"role":"user"|"assistant", "content": "..." | [blocks]}],
///    "tools": [{"name","description","input_schema"}],
///    "tool_choice": {"type":"auto"|"any"|"tool"|"none","name","disable_parallel_tool_use"},
///    "stop_sequences", "temperature", "top_p", "top_k", "stream"}
/// Blocks: `text`; `image` with `source: {"type":"base64","media_type","data"}`; `tool_use`
/// (assistant: a tool call); `tool_result` (user: a tool message, in the order sent).
/// `thinking` and `redacted_thinking` blocks of earlier turns are not sent on (the brains here
/// take no thinking as input); `cache_control`, `metadata` and `thinking` are accepted and not
/// used. Anything else (documents, server tools, URL images) is refused by name.
enum AnthropicMessagesReader {
    static func read(_ body: [UInt8], requireMaxTokens: Bool = true) throws(LocalAPIError) -> APIChatRequest {
        let o = try JSONReading.object(body)
        guard let model = o["model"] as? String, !model.isEmpty else { throw .badRequest("model: Field required") }
        let maxTokens = JSONReading.int(o["max_tokens"])
        if requireMaxTokens, maxTokens == nil { throw .badRequest("max_tokens: Field required") }
        guard let list = o["messages"] as? [JSONObject] else { throw .badRequest("messages: Field required") }
        var messages: [ChatMessage] = []
        if let system = try systemText(o["system"]), !system.isEmpty {
            messages.append(ChatMessage(role: .system, content: system))
        }
        for m in list { messages += try turn(m) }
        var options = GenerationOptions()
        if let stop = o["stop_sequences"] {
            guard let s = stop as? [String] else { throw .badRequest("stop_sequences: a list of strings") }
            options.stop = s
        }
        options.topP = JSONReading.double(o["top_p"])
        options.topK = JSONReading.int(o["top_k"])
        // Anthropic's "at most one tool call" is OpenAI's parallel_tool_calls false (llama-server's grammar reads it).
        if JSONReading.bool((o["tool_choice"] as? JSONObject)?["disable_parallel_tool_use"]) == true {
            options.extra["parallel_tool_calls"] = "false"
        }
        let chat = ChatRequest(model: model, messages: messages, tools: try tools(o["tools"]),
                               toolChoice: try toolChoice(o["tool_choice"]), maxTokens: maxTokens,
                               temperature: JSONReading.double(o["temperature"]), options: options)
        return APIChatRequest(chat: chat, stream: JSONReading.bool(o["stream"]) ?? false, includeUsage: true)
    }

    static func systemText(_ v: Any?) throws(LocalAPIError) -> String? {
        switch v {
        case nil, is NSNull: return nil
        case let s as String: return s
        case let blocks as [JSONObject]:
            return try blocks.map { b throws(LocalAPIError) in
                guard b["type"] as? String == "text", let t = b["text"] as? String else {
                    throw .badRequest("system: only text blocks are accepted")
                }
                return t
            }.joined(separator: "\n\n")
        default: throw .badRequest("system: a string or a list of text blocks")
        }
    }

    /// One Anthropic message: tool results become `tool` messages where they stand.
    static func turn(_ m: JSONObject) throws(LocalAPIError) -> [ChatMessage] {
        guard let roleName = m["role"] as? String, let role = ChatMessage.Role(rawValue: roleName),
              role == .user || role == .assistant else {
            throw .badRequest("messages: role must be \"user\" or \"assistant\"")
        }
        if let s = m["content"] as? String { return [ChatMessage(role: role, content: s)] }
        guard let blocks = m["content"] as? [JSONObject] else { throw .badRequest("messages: content is a string or a list of blocks") }
        var out: [ChatMessage] = []
        var parts: [ContentPart] = []
        var calls: [ToolCall] = []
        func flush() {
            if !parts.isEmpty || !calls.isEmpty { out.append(ChatMessage(role: role, parts: parts, toolCalls: calls)) }
            parts = []; calls = []
        }
        for b in blocks {
            let type = b["type"] as? String ?? ""
            switch type {
            case "text":
                guard let t = b["text"] as? String else { throw .badRequest("a text block has no text") }
                parts.append(.text(t))
            case "image":
                parts.append(.image(try image(b)))
            case "tool_use":
                guard role == .assistant else { throw .badRequest("tool_use blocks belong to assistant messages") }
                guard let id = b["id"] as? String, let name = b["name"] as? String else {
                    throw .badRequest("a tool_use block needs id and name")
                }
                calls.append(ToolCall(id: id, name: name, argumentsJSON: JSONReading.text(b["input"] ?? JSONObject())))
            case "tool_result":
                guard role == .user else { throw .badRequest("tool_result blocks belong to user messages") }
                guard let id = b["tool_use_id"] as? String else { throw .badRequest("a tool_result block needs tool_use_id") }
                flush()
                var result = try toolResultParts(b["content"])
                if JSONReading.bool(b["is_error"]) == true { result.insert(.text("Error: "), at: 0) }
                out.append(ChatMessage(role: .tool, parts: result, toolCallID: id))
            case "thinking", "redacted_thinking":
                continue
            default:
                throw .badRequest("content blocks of type \"\(type.prefix(40))\" are not supported here")
            }
        }
        flush()
        return out
    }

    private static func toolResultParts(_ v: Any?) throws(LocalAPIError) -> [ContentPart] {
        switch v {
        case nil: return []
        case let s as String: return s.isEmpty ? [] : [.text(s)]
        case let blocks as [JSONObject]:
            return try blocks.map { b throws(LocalAPIError) -> ContentPart in
                switch b["type"] as? String {
                case "text": return .text(b["text"] as? String ?? "")
                case "image": return .image(try image(b))
                default: throw .badRequest("a tool_result holds text and image blocks only")
                }
            }
        default: throw .badRequest("a tool_result content is a string or a list of blocks")
        }
    }

    private static func image(_ b: JSONObject) throws(LocalAPIError) -> ImageData {
        guard let s = b["source"] as? JSONObject else { throw .badRequest("an image block has no source") }
        switch s["type"] as? String {
        case "base64":
            guard let data = s["data"] as? String else { throw .badRequest("an image source has no data") }
            return try ContentReading.base64Image(data, mediaType: s["media_type"] as? String)
        case "url":
            throw .badRequest("image URLs are not fetched here: send the image as base64 (source.type \"base64\")")
        default:
            throw .badRequest("an image source must be of type \"base64\"")
        }
    }

    static func tools(_ v: Any?) throws(LocalAPIError) -> [ToolDefinition] {
        guard let v else { return [] }
        guard let list = v as? [JSONObject] else { throw .badRequest("tools: a list") }
        return try list.map { t throws(LocalAPIError) in
            if let type = t["type"] as? String, type != "custom" {
                throw .badRequest("tool type \"\(type.prefix(40))\" (a server tool) is not available here; define it with input_schema")
            }
            guard let name = t["name"] as? String, !name.isEmpty else { throw .badRequest("a tool has no name") }
            guard let schema = t["input_schema"] as? JSONObject else { throw .badRequest("tool \(name.prefix(40)) has no input_schema") }
            return ToolDefinition(name: name, description: t["description"] as? String ?? "", parametersJSON: JSONReading.text(schema))
        }
    }

    static func toolChoice(_ v: Any?) throws(LocalAPIError) -> ToolChoice? {
        guard let o = v as? JSONObject else {
            if v == nil { return nil }
            throw .badRequest("tool_choice: an object with a type")
        }
        switch o["type"] as? String {
        case "auto": return .auto
        case "any": return .required
        case "none": return ToolChoice.none
        case "tool":
            guard let name = o["name"] as? String else { throw .badRequest("tool_choice of type tool needs a name") }
            return .function(name)
        default: throw .badRequest("tool_choice: type is auto, any, tool or none")
        }
    }
}
