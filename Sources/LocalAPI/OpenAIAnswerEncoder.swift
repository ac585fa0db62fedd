import Foundation
import Inference

/// Writes an answer in OpenAI's Chat Completions shapes: a pure encoder, tested without sockets.
///
/// Streamed (`text/event-stream`), one `data:` event per `ChatEvent`:
///   data: {"id","object":"chat.completion.chunk","created","model",
///          "choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}]}
///   data: {... "delta":{"tool_calls":[{"index":0,"id","type":"function","function":{"name","arguments":""}}]} ...}
///   data: {... "delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"ci"}}]} ...}     (the pieces)
/// Tool calls stream from `.toolCallDelta` as the engine streams them; the whole `.toolCall` that
/// follows is then skipped. A brain that only learns whole calls (no deltas) has each written as
/// one delta carrying everything.
///   data: {... "delta":{},"finish_reason":"stop"}], "homebase":{"brain":...}}     (without include_usage)
///   data: {... "choices":[],"usage":{...},"homebase":{"brain":...}}              (with include_usage)
///   data: [DONE]
/// A failure after the head: `data: {"error":{"message","type":"server_error"}}`, and no `[DONE]`.
struct OpenAIAnswerEncoder: Sendable {
    let model: String
    let includeUsage: Bool
    /// Set again just before the last event: a fallback may have changed who answered.
    var homebase: [String: String]
    let id = "chatcmpl-" + String(UInt64.random(in: 0..<UInt64.max), radix: 36)
    let created = Int(Date().timeIntervalSince1970)
    private var sentRole = false
    private var toolIndex = 0
    /// The brain's tool-call index → (its id, the index written). A delta with a new id at an
    /// index already used (a fallback brain starting over) is a new call at the next index, so it
    /// never merges into the call it replaces.
    private var startedCalls: [Int: (id: String, out: Int)] = [:]
    // Non-streamed answer, collected.
    var text = ""
    var calls: [ToolCall] = []
    var reasoning = ""

    init(model: String, includeUsage: Bool, homebase: [String: String]) {
        self.model = model; self.includeUsage = includeUsage; self.homebase = homebase
    }

    static let contentType = "text/event-stream"

    mutating func stream(_ event: ChatEvent) -> [UInt8] {
        switch event {
        case .text(let t):
            return sse(chunk(delta: roleFirst(["content": t]), finish: nil))
        case .toolCall(let c):
            guard startedCalls.isEmpty else { return [] }  // already streamed as its deltas
            defer { toolIndex += 1 }
            let call: JSONObject = ["index": toolIndex, "id": c.id, "type": "function",
                                    "function": ["name": c.name, "arguments": c.argumentsJSON]]
            return sse(chunk(delta: roleFirst(["tool_calls": [call]]), finish: nil))
        case .reasoning(let t):
            return sse(chunk(delta: roleFirst(["reasoning_content": t]), finish: nil))
        case .toolCallDelta(let d):
            let call: JSONObject
            if let started = startedCalls[d.index], d.id == nil || d.id == started.id {
                var f: JSONObject = ["arguments": d.arguments]
                if let n = d.name { f["name"] = n }
                call = ["index": started.out, "function": f]
            } else {
                // OpenAI's first delta of a call carries its id, type and name.
                let out = toolIndex
                toolIndex += 1
                let id = d.id ?? "call_\(out)"
                startedCalls[d.index] = (id, out)
                call = ["index": out, "id": id, "type": "function",
                        "function": ["name": d.name ?? "", "arguments": d.arguments] as JSONObject]
            }
            return sse(chunk(delta: roleFirst(["tool_calls": [call]]), finish: nil))
        case .done(let reason, let usage):
            var last = chunk(delta: roleFirst([:]), finish: reason)
            guard includeUsage else {
                last["homebase"] = homebase
                return sse(last) + Array("data: [DONE]\n\n".utf8)
            }
            var u = chunkBase()
            u["choices"] = [Any]()
            u["usage"] = usage.map(Self.usage) ?? NSNull()
            u["homebase"] = homebase
            return sse(last) + sse(u) + Array("data: [DONE]\n\n".utf8)
        }
    }

    func streamError(_ message: String) -> [UInt8] {
        sse(["error": ["message": message, "type": "server_error"] as JSONObject])
    }

}

extension OpenAIAnswerEncoder {
    /// Non-streamed: feed every event, then `whole`.
    mutating func collect(_ event: ChatEvent) {
        switch event {
        case .text(let t): text += t
        case .toolCall(let c): calls.append(c)
        case .reasoning(let t): reasoning += t
        case .toolCallDelta: break
        case .done: break
        }
    }

    /// `{"id","object":"chat.completion",...,"choices":[{"index":0,"message":{...},"finish_reason"}],"usage","homebase"}`
    func whole(finishReason: String, usage: Usage?) -> [UInt8] {
        var message: JSONObject = ["role": "assistant", "content": calls.isEmpty || !text.isEmpty ? text : NSNull()]
        if !reasoning.isEmpty { message["reasoning_content"] = reasoning }
        if !calls.isEmpty {
            message["tool_calls"] = calls.map { c in
                ["id": c.id, "type": "function", "function": ["name": c.name, "arguments": c.argumentsJSON]] as JSONObject
            }
        }
        var o = chunkBase()
        o["object"] = "chat.completion"
        o["choices"] = [["index": 0, "message": message, "finish_reason": finishReason] as JSONObject]
        o["usage"] = usage.map(Self.usage) ?? NSNull()
        o["homebase"] = homebase
        return JSONReading.bytes(o)
    }

    /// The error body of a failed non-streamed answer (or one that failed before its head).
    static func errorBody(_ message: String, type: String = "server_error") -> [UInt8] {
        JSONReading.bytes(["error": ["message": message, "type": type] as JSONObject])
    }

    mutating func roleFirst(_ delta: JSONObject) -> JSONObject {
        guard !sentRole else { return delta }
        sentRole = true
        var d = delta
        d["role"] = "assistant"
        return d
    }

    func chunkBase() -> JSONObject {
        ["id": id, "object": "chat.completion.chunk", "created": created, "model": model]
    }

    func chunk(delta: JSONObject, finish: String?) -> JSONObject {
        var o = chunkBase()
        o["choices"] = [["index": 0, "delta": delta, "finish_reason": finish ?? NSNull()] as JSONObject]
        return o
    }

    func sse(_ o: JSONObject) -> [UInt8] { Array("data: ".utf8) + JSONReading.bytes(o) + [10, 10] }

    static func usage(_ u: Usage) -> JSONObject {
        ["prompt_tokens": u.promptTokens, "completion_tokens": u.completionTokens,
         "total_tokens": u.promptTokens + u.completionTokens]
    }
}
