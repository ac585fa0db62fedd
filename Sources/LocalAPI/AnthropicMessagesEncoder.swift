import Foundation
import Inference

/// Writes an answer in Anthropic's Messages shapes: a pure encoder, tested without sockets.
///
/// Streamed (`text/event-stream`, each event `event: TYPE` + `data: {...}`):
///   message_start {"message": {"id","type":"message","role":"assistant","model","content":[],
///                  "stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}}
///   ping
///   content_block_start {"index", "content_block": {"type":"text","text":""}
///                        | {"type":"thinking","thinking":"","signature":""}
///                        | {"type":"tool_use","id","name","input":{}}}
///   content_block_delta {"index", "delta": text_delta | thinking_delta | input_json_delta}
///   content_block_stop {"index"}                      (one block open at a time)
///   message_delta {"delta": {"stop_reason","stop_sequence":null}, "usage": {"input_tokens","output_tokens"},
///                  "homebase": {...}}
///   message_stop
/// A failure after the head: `event: error` `{"type":"error","error":{"type":"api_error","message"}}`
/// and no message_stop. Keep-alives are `ping` events (after message_start, which the SDK
/// requires first). Tool calls stream as their pieces arrive when the brain streams them
/// (`.toolCallDelta`, one call after another, as engines send them), else whole in one
/// `input_json_delta`.
struct AnthropicMessagesEncoder: Sendable {
    let model: String
    var homebase: [String: String]
    let id = "msg_" + String(UInt64.random(in: 0..<UInt64.max), radix: 36)
    private var started = false
    private var nextIndex = 0
    private enum Open: Sendable { case none, text, thinking, tool(delta: Int) }
    private var open = Open.none
    /// Calls streamed by pieces, by the brain's index: whether their name is known yet and the
    /// arguments held until it is. Removed when their whole `.toolCall` arrives.
    private var streamed: [Int] = []
    private var held: [Int: (id: String?, name: String?, args: String)] = [:]
    private var toolCount = 0
    // Non-streamed answer, collected.
    private enum Block: Sendable { case text(String), thinking(String), tool(ToolCall) }
    private var blocks: [Block] = []

    init(model: String, homebase: [String: String]) { self.model = model; self.homebase = homebase }

    static let contentType = "text/event-stream"

    /// Messages' `stop_reason` for the vocabulary's finish reason.
    static func stopReason(_ finish: String) -> String {
        switch finish {
        case "length": "max_tokens"
        case "tool_calls": "tool_use"
        default: "end_turn"
        }
    }

    mutating func stream(_ event: ChatEvent) -> [UInt8] {
        var out = begin()
        switch event {
        case .text(let t):
            if case .text = open {} else { out += close(); out += startBlock(["type": "text", "text": ""]); open = .text }
            out += delta(["type": "text_delta", "text": t])
        case .reasoning(let t):
            if case .thinking = open {} else {
                out += close(); out += startBlock(["type": "thinking", "thinking": "", "signature": ""]); open = .thinking
            }
            out += delta(["type": "thinking_delta", "thinking": t])
        case .toolCallDelta(let d):
            if case .tool(let i) = open, i == d.index {
                if !d.arguments.isEmpty { out += delta(["type": "input_json_delta", "partial_json": d.arguments]) }
                break
            }
            var h = held[d.index] ?? (nil, nil, "")
            h.id = h.id ?? d.id; h.name = h.name ?? d.name; h.args += d.arguments
            guard let name = h.name, !streamed.contains(d.index) else { held[d.index] = h; break }
            held[d.index] = nil
            streamed.append(d.index)
            out += close()
            out += startBlock(["type": "tool_use", "id": h.id ?? nextToolID(), "name": name, "input": JSONObject()])
            open = .tool(delta: d.index)
            if !h.args.isEmpty { out += delta(["type": "input_json_delta", "partial_json": h.args]) }
        case .toolCall(let c):
            if !streamed.isEmpty {
                let i = streamed.removeFirst()
                if case .tool(let o) = open, o == i { out += close() }
                break
            }
            held = [:]
            out += close()
            out += startBlock(["type": "tool_use", "id": c.id, "name": c.name, "input": JSONObject()])
            out += delta(["type": "input_json_delta", "partial_json": c.argumentsJSON])
            open = .tool(delta: -1)
            out += close()
        case .logprobs:
            break  // Anthropic's Messages API has no logprobs
        case .done(let reason, let usage):
            out += close()
            var u: JSONObject = ["output_tokens": usage?.completionTokens ?? 0]
            if let usage { u["input_tokens"] = usage.promptTokens }
            out += Self.sse("message_delta", ["type": "message_delta", "usage": u, "homebase": homebase,
                                              "delta": ["stop_reason": Self.stopReason(reason), "stop_sequence": NSNull()] as JSONObject])
            out += Self.sse("message_stop", ["type": "message_stop"])
        }
        return out
    }

    /// A `ping` (after `message_start` when nothing was sent yet).
    mutating func keepAlive() -> [UInt8] {
        started ? Self.sse("ping", ["type": "ping"]) : begin()  // begin() ends with a ping
    }

    func streamError(_ message: String) -> [UInt8] { Self.sse("error", Self.error(message, type: "api_error")) }

    mutating func collect(_ event: ChatEvent) {
        switch event {
        case .text(let t):
            if case .text(let s) = blocks.last { blocks[blocks.count - 1] = .text(s + t) } else { blocks.append(.text(t)) }
        case .reasoning(let t):
            if case .thinking(let s) = blocks.last { blocks[blocks.count - 1] = .thinking(s + t) } else { blocks.append(.thinking(t)) }
        case .toolCall(let c): blocks.append(.tool(c))
        case .toolCallDelta, .logprobs, .done: break
        }
    }

    func whole(finishReason: String, usage: Usage?) -> [UInt8] {
        let content: [JSONObject] = blocks.map { b in
            switch b {
            case .text(let t): return ["type": "text", "text": t]
            case .thinking(let t): return ["type": "thinking", "thinking": t, "signature": ""]
            case .tool(let c):
                let input = (try? JSONSerialization.jsonObject(with: Data(c.argumentsJSON.utf8))) as? JSONObject ?? [:]
                return ["type": "tool_use", "id": c.id, "name": c.name, "input": input]
            }
        }
        var m = message(content: content, stopReason: Self.stopReason(finishReason), usage: usage)
        m["homebase"] = homebase
        return JSONReading.bytes(m)
    }

    static func errorBody(_ message: String) -> [UInt8] { JSONReading.bytes(error(message, type: "api_error")) }

    /// `{"type":"error","error":{"type","message"}}`: `invalid_request_error` (400),
    /// `authentication_error` (401), `not_found_error` (404), `api_error` (the brain failed).
    static func error(_ message: String, type: String) -> JSONObject {
        ["type": "error", "error": ["type": type, "message": message] as JSONObject]
    }

    private func message(content: [JSONObject], stopReason: String?, usage: Usage?) -> JSONObject {
        ["id": id, "type": "message", "role": "assistant", "model": model, "content": content,
         "stop_reason": stopReason ?? NSNull(), "stop_sequence": NSNull(),
         "usage": ["input_tokens": usage?.promptTokens ?? 0, "output_tokens": usage?.completionTokens ?? 0] as JSONObject]
    }

    private mutating func begin() -> [UInt8] {
        guard !started else { return [] }
        started = true
        return Self.sse("message_start", ["type": "message_start", "message": message(content: [], stopReason: nil, usage: nil)])
            + Self.sse("ping", ["type": "ping"])
    }

    private mutating func startBlock(_ block: JSONObject) -> [UInt8] {
        Self.sse("content_block_start", ["type": "content_block_start", "index": nextIndex, "content_block": block])
    }

    private func delta(_ d: JSONObject) -> [UInt8] {
        Self.sse("content_block_delta", ["type": "content_block_delta", "index": nextIndex, "delta": d])
    }

    private mutating func close() -> [UInt8] {
        if case .none = open { return [] }
        open = .none
        defer { nextIndex += 1 }
        return Self.sse("content_block_stop", ["type": "content_block_stop", "index": nextIndex])
    }

    private mutating func nextToolID() -> String {
        toolCount += 1
        return "toolu_\(id.dropFirst(4))_\(toolCount)"
    }

    static func sse(_ event: String, _ data: JSONObject) -> [UInt8] {
        Array("event: \(event)\ndata: ".utf8) + JSONReading.bytes(data) + [10, 10]
    }
}
