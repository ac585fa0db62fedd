import Foundation
import Inference

/// `POST /v1/responses` (OpenAI Responses) read into the vocabulary:
///   {"model", "input": "..." | [items], "instructions", "tools": [{"type":"function","name",
///    "description","parameters","strict"}], "tool_choice": "auto"|"none"|"required"|{"type":"function","name"},
///    "max_output_tokens", "temperature", "top_p", "stream", "store" (default true),
///    "previous_response_id", "text": {"format": {"type":"text"|"json_object"|"json_schema",...}}}
/// Items: messages (`{"type":"message"?, "role", "content": "..." | [input_text | input_image
/// (data: URL) | output_text | refusal]}`), `function_call` {call_id, name, arguments},
/// `function_call_output` {call_id, output}, and their `custom_tool_call` {call_id, name, input}
/// and `custom_tool_call_output` twins; `reasoning` items of earlier turns are not sent on.
/// Other item types are refused by name. Tools: `function`; `custom` (freeform, as Codex's
/// `apply_patch`) offered to the model as a function of one string `input` and answered as a
/// `custom_tool_call`; hosted tools (web_search, file_search, namespace, ...) cannot run here:
/// they are not offered, and the response's `homebase.ignored_tools` names them (Codex sends
/// them with every request, so refusing would refuse Codex). `reasoning`,
/// `parallel_tool_calls`, `metadata`, `include`, `truncation`, `user` are accepted and not used.
struct ResponsesRequest: Sendable {
    var api: APIChatRequest
    /// The request's own input, without history or instructions (what a stored response keeps).
    var input: [ChatMessage]
    var instructions: String?
    var previousResponseID: String?
    var store: Bool
    /// Echoed in the response object, as the client sent them.
    var toolsEcho: [String]
    var toolChoiceEcho: String
    /// Freeform tools, by name: their calls are written as `custom_tool_call` items.
    var customTools: Set<String> = []
    /// Tool types sent and not offered to the model (hosted tools), in order, once each.
    var ignoredTools: [String] = []
    /// The input as items, JSON (`ResponsesRetrieval.items`), for `GET /v1/responses/{id}/input_items`.
    var inputItems: [UInt8] = []
}

enum ResponsesReader {
    static func read(_ body: [UInt8]) throws(LocalAPIError) -> ResponsesRequest {
        let o = try JSONReading.object(body)
        let model = o["model"] as? String ?? ""
        var input: [ChatMessage] = []
        switch o["input"] {
        case let s as String: input = [ChatMessage(role: .user, content: s)]
        case let items as [JSONObject]: input = try messages(items)
        case nil: throw .badRequest("input: Field required")
        default: throw .badRequest("input: a string or a list of items")
        }
        let instructions = o["instructions"] as? String
        var options = GenerationOptions()
        options.topP = JSONReading.double(o["top_p"])
        if let text = o["text"] as? JSONObject, let format = text["format"] as? JSONObject {
            options.responseFormat = try responseFormat(format)
        }
        let toolList = o["tools"] as? [JSONObject] ?? []
        var tools: [ToolDefinition] = [], custom: Set<String> = [], ignored: [String] = []
        for t in toolList {
            let type = t["type"] as? String ?? ""
            switch type {
            case "function":
                guard let name = t["name"] as? String, !name.isEmpty else { throw .badRequest("a function tool has no name") }
                tools.append(ToolDefinition(name: name, description: t["description"] as? String ?? "",
                                            parametersJSON: t["parameters"].map(JSONReading.text) ?? "{\"type\":\"object\"}"))
            case "custom":
                guard let name = t["name"] as? String, !name.isEmpty else { throw .badRequest("a custom tool has no name") }
                custom.insert(name)
                tools.append(ToolDefinition(name: name, description: customDescription(t), parametersJSON: customParameters))
            default:
                if !ignored.contains(type) { ignored.append(String(type.prefix(40))) }
            }
        }
        var choiceEcho = "\"auto\""
        var choice: ToolChoice?
        switch o["tool_choice"] {
        case nil: break
        case let s as String:
            switch s {
            case "auto": choice = .auto
            case "none": choice = ToolChoice.none
            case "required": choice = .required
            default: throw .badRequest("tool_choice: auto, none, required or a function")
            }
            choiceEcho = "\"\(s)\""
        case let c as JSONObject:
            guard ["function", "custom"].contains(c["type"] as? String ?? ""), let name = c["name"] as? String else {
                throw .badRequest("tool_choice: only {\"type\":\"function\"|\"custom\",\"name\"} objects are accepted")
            }
            choice = .function(name)
            choiceEcho = JSONReading.text(c)
        default: throw .badRequest("tool_choice: a string or an object")
        }
        let chat = ChatRequest(model: model, messages: input, tools: tools, toolChoice: choice,
                               maxTokens: JSONReading.int(o["max_output_tokens"]),
                               temperature: JSONReading.double(o["temperature"]), options: options)
        return ResponsesRequest(api: APIChatRequest(chat: chat, stream: JSONReading.bool(o["stream"]) ?? false, includeUsage: true),
                                input: input, instructions: instructions,
                                previousResponseID: o["previous_response_id"] as? String,
                                store: JSONReading.bool(o["store"]) ?? true,
                                toolsEcho: toolList.map(JSONReading.text), toolChoiceEcho: choiceEcho,
                                customTools: custom, ignoredTools: ignored,
                                inputItems: Array(JSONReading.text(ResponsesRetrieval.items(o["input"])).utf8))
    }

    /// A freeform tool as a function: one string, `input`, the raw text the tool takes.
    static let customParameters = #"{"type":"object","properties":{"input":{"type":"string","description":"the raw input of the tool, as its format says"}},"required":["input"]}"#

    /// The description, and the input's grammar when it has one (bounded: a grammar is a hint).
    static func customDescription(_ t: JSONObject) -> String {
        var d = t["description"] as? String ?? ""
        if let f = t["format"] as? JSONObject, f["type"] as? String == "grammar", let g = f["definition"] as? String {
            d += "\n\nThe input follows this \(f["syntax"] as? String ?? "") grammar:\n" + String(g.prefix(4000))
        }
        return d
    }

    /// The raw input of a freeform call from the function arguments the model wrote.
    static func customInput(_ argumentsJSON: String) -> String {
        guard let o = (try? JSONSerialization.jsonObject(with: Data(argumentsJSON.utf8))) as? JSONObject,
              let input = o["input"] as? String else { return argumentsJSON }
        return input
    }

    /// Items in order; consecutive function calls join one assistant message.
    static func messages(_ items: [JSONObject]) throws(LocalAPIError) -> [ChatMessage] {
        var out: [ChatMessage] = []
        for item in items {
            let type = item["type"] as? String ?? (item["role"] != nil ? "message" : "")
            switch type {
            case "message":
                let role = ChatMessage.Role(rawValue: try JSONReading.role(item["role"]))!
                out.append(ChatMessage(role: role, parts: try parts(item["content"])))
            case "function_call":
                guard let callID = item["call_id"] as? String, let name = item["name"] as? String else {
                    throw .badRequest("a function_call item needs call_id and name")
                }
                let call = ToolCall(id: callID, name: name, argumentsJSON: item["arguments"] as? String ?? "{}")
                if let last = out.last, last.role == .assistant {
                    out[out.count - 1].toolCalls.append(call)
                } else {
                    out.append(ChatMessage(role: .assistant, parts: [], toolCalls: [call]))
                }
            case "custom_tool_call":
                guard let callID = item["call_id"] as? String, let name = item["name"] as? String else {
                    throw .badRequest("a custom_tool_call item needs call_id and name")
                }
                let call = ToolCall(id: callID, name: name, argumentsJSON: JSONReading.text(["input": item["input"] as? String ?? ""]))
                if let last = out.last, last.role == .assistant {
                    out[out.count - 1].toolCalls.append(call)
                } else {
                    out.append(ChatMessage(role: .assistant, parts: [], toolCalls: [call]))
                }
            case "function_call_output", "custom_tool_call_output":
                guard let callID = item["call_id"] as? String else { throw .badRequest("a function_call_output item needs call_id") }
                let output: [ContentPart]
                if let s = item["output"] as? String { output = s.isEmpty ? [] : [.text(s)] } else { output = try parts(item["output"]) }
                out.append(ChatMessage(role: .tool, parts: output, toolCallID: callID))
            case "reasoning":
                continue
            default:
                throw .badRequest("input items of type \"\(type.prefix(40))\" are not supported here")
            }
        }
        return out
    }

    static func parts(_ v: Any?) throws(LocalAPIError) -> [ContentPart] {
        switch v {
        case nil, is NSNull: return []
        case let s as String: return s.isEmpty ? [] : [.text(s)]
        case let list as [JSONObject]:
            return try list.map { p throws(LocalAPIError) -> ContentPart in
                switch p["type"] as? String {
                case "input_text", "output_text", "text":
                    return .text(p["text"] as? String ?? "")
                case "refusal":
                    return .text(p["refusal"] as? String ?? "")
                case "input_image":
                    guard let url = p["image_url"] as? String else {
                        throw .badRequest("an input_image needs image_url (a data: URL); file_id is not available here")
                    }
                    return .image(try ContentReading.dataURL(url))
                case let t:
                    throw .badRequest("content parts of type \"\((t ?? "").prefix(40))\" are not supported here")
                }
            }
        default: throw .badRequest("a message content is a string or a list of parts")
        }
    }

    static func responseFormat(_ f: JSONObject) throws(LocalAPIError) -> ResponseFormat {
        switch f["type"] as? String {
        case "text": return .text
        case "json_object": return .jsonObject
        case "json_schema":
            return .jsonSchema(name: f["name"] as? String ?? "schema", schemaJSON: f["schema"].map(JSONReading.text) ?? "{}",
                               strict: JSONReading.bool(f["strict"]) ?? false)
        default: throw .badRequest("text.format: type is text, json_object or json_schema")
        }
    }
}
