import Foundation

/// Turns the SSE events of Anthropic's streaming Messages API into `ChatEvent`s: a pure state
/// machine, tested without sockets.
///
///   event: message_start        {"type":"message_start","message":{..., "usage":{"input_tokens":25,"output_tokens":1}}}
///   event: content_block_start  {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}
///                               {... "content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}
///   event: ping                 {"type":"ping"}                                   (not output)
///   event: content_block_delta  {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}
///                               {... "delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}
///                               {... "delta":{"type":"thinking_delta","thinking":"..."}}   (.reasoning)
///   event: content_block_stop   {"type":"content_block_stop","index":1}           (a tool call is complete)
///   event: message_delta        {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":15}}
///   event: message_stop         {"type":"message_stop"}                           (the only success)
///   event: error                {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}
///
/// Unknown event and delta types are ignored (the API's versioning policy adds new ones).
/// Stop reasons are reported in OpenAI's words, the vocabulary of `ChatEvent`.
struct AnthropicStreamDecoder {
    fileprivate struct Block { var isTool: Bool; var id: String; var name: String; var json: String; var toolIndex = 0 }

    fileprivate var blocks: [Int: Block] = [:]
    /// Tool calls started so far: the `index` of their `.toolCallDelta`s (blocks count text too).
    fileprivate var toolCount = 0
    private var inputTokens: Int?
    private var outputTokens: Int?
    private var stopReason: String?
    /// `message_stop` was seen: the answer is complete, later events are ignored.
    private(set) var isDone = false

    mutating func handle(_ event: SSEEvent, into out: inout [ChatEvent]) throws {
        guard !isDone else { return }
        if event.type == SSEEvent.strayLineType { return }
        let object = try? JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any]
        let type = object?.string("type") ?? event.type
        if type == "error" || event.type == "error" {
            throw InferenceError.inBand(OpenAIStreamDecoder.errorMessage(inText: event.data))
        }
        if type == "ping" { return }
        guard let o = object else { throw InferenceError.malformed("a stream event is not a JSON object") }
        switch type {
        case "message_start":
            let usage = o.object("message")?.object("usage")
            inputTokens = usage?.int("input_tokens") ?? inputTokens
            outputTokens = usage?.int("output_tokens") ?? outputTokens
        case "content_block_start":
            try startBlock(o, into: &out)
        case "content_block_delta":
            try delta(o, into: &out)
        case "content_block_stop":
            guard let index = o.int("index") else { throw InferenceError.malformed("content_block_stop without index") }
            if let b = blocks.removeValue(forKey: index), b.isTool {
                out.append(.toolCall(ToolCall(id: b.id.isEmpty ? "toolu_\(index)" : b.id, name: b.name,
                                              argumentsJSON: b.json.isEmpty ? "{}" : b.json)))
            }
        case "message_delta":
            if let r = o.object("delta")?.string("stop_reason") { stopReason = r }
            if let u = o.object("usage") {
                inputTokens = u.int("input_tokens") ?? inputTokens
                outputTokens = u.int("output_tokens") ?? outputTokens
            }
        case "message_stop":
            guard blocks.values.allSatisfy({ !$0.isTool }) else {
                throw InferenceError.malformed("message_stop before a tool_use block was closed")
            }
            isDone = true
            let usage = inputTokens == nil && outputTokens == nil ? nil
                : Usage(promptTokens: inputTokens ?? 0, completionTokens: outputTokens ?? 0)
            out.append(.done(finishReason: Self.finishReason(stopReason), usage: usage))
        default:
            return
        }
    }

}

extension AnthropicStreamDecoder {
    fileprivate mutating func startBlock(_ o: [String: Any], into out: inout [ChatEvent]) throws {
        guard let index = o.int("index"), let block = o.object("content_block") else {
            throw InferenceError.malformed("content_block_start without index or block")
        }
        switch block.string("type") {
        case "tool_use":
            guard let name = block.string("name") else { throw InferenceError.malformed("tool_use block without a name") }
            // `input` is `{}` at the start; a non-empty one (no deltas follow) is taken as it is.
            var json = ""
            if let input = block.object("input"), !input.isEmpty,
               let data = try? JSONSerialization.data(withJSONObject: input) {
                json = String(decoding: data, as: UTF8.self)
            }
            let id = block.string("id") ?? ""
            blocks[index] = Block(isTool: true, id: id, name: name, json: json, toolIndex: toolCount)
            out.append(.toolCallDelta(ToolCallDelta(index: toolCount, id: id.isEmpty ? nil : id, name: name, arguments: json)))
            toolCount += 1
        case "text":
            blocks[index] = Block(isTool: false, id: "", name: "", json: "")
            if let t = block.string("text") { out.append(.text(t)) }
        case "thinking":
            blocks[index] = Block(isTool: false, id: "", name: "", json: "")
            if let t = block.string("thinking"), !t.isEmpty { out.append(.reasoning(t)) }
        default:
            return  // redacted_thinking, server tools: not part of the answer
        }
    }

    fileprivate mutating func delta(_ o: [String: Any], into out: inout [ChatEvent]) throws {
        guard let index = o.int("index"), let d = o.object("delta") else {
            throw InferenceError.malformed("content_block_delta without index or delta")
        }
        switch d.string("type") {
        case "text_delta":
            if let t = d.string("text") { out.append(.text(t)) }
        case "thinking_delta":
            if let t = d.string("thinking"), !t.isEmpty { out.append(.reasoning(t)) }
        case "input_json_delta":
            guard blocks[index]?.isTool == true else {
                throw InferenceError.malformed("input_json_delta for block \(index), which is not a tool_use")
            }
            let piece = d["partial_json"] as? String ?? ""
            blocks[index]!.json += piece
            if !piece.isEmpty { out.append(.toolCallDelta(ToolCallDelta(index: blocks[index]!.toolIndex, arguments: piece))) }
        default:
            return
        }
    }

    /// Anthropic's stop reasons in OpenAI's words; unknown ones pass through.
    static func finishReason(_ r: String?) -> String {
        switch r {
        case nil, "end_turn", "stop_sequence": "stop"
        case "max_tokens": "length"
        case "tool_use": "tool_calls"
        case let other?: other
        }
    }
}
