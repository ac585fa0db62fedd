import Foundation
import Inference

/// Writes an answer in OpenAI's Chat Completions shapes: a pure encoder, tested without sockets.
///
/// Streamed (`text/event-stream`), one `data:` event per `ChatEvent`:
///   data: {"id","object":"chat.completion.chunk","created","model",
///          "choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}]}
///   data: {... "delta":{"tool_calls":[{"index":0,"id","type":"function","function":{"name","arguments":""}}]} ...}
///   data: {... "delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"ci"}}]} ...}     (the pieces)
///   data: {... "delta":{},"logprobs":{"content":[{"token","logprob","bytes","top_logprobs":[...]}]} ...}
/// A tool call is written once it is whole (`.toolCall`), as one delta carrying its id, name and
/// all its arguments (OpenAI's streamed shape allows it; clients assemble it the same way), at the
/// next index; `.toolCallDelta`s are not written. So a brain that fails mid-call never leaves a
/// half-written call for a fallback's call to sit beside (#23): the runner hands on only the
/// calls of the brain that finished. The price is that arguments do not stream piece by piece.
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
    private var collected = CollectedAnswer()

    init(model: String, includeUsage: Bool, homebase: [String: String]) {
        self.model = model; self.includeUsage = includeUsage; self.homebase = homebase
    }

    static let contentType = "text/event-stream"

    mutating func stream(_ event: ChatEvent) -> [UInt8] {
        switch event {
        case .text(let t):
            return sse(chunk(delta: roleFirst(["content": t]), finish: nil))
        case .toolCall(let c):
            defer { toolIndex += 1 }
            let call: JSONObject = ["index": toolIndex, "id": c.id, "type": "function",
                                    "function": ["name": c.name, "arguments": c.argumentsJSON]]
            return sse(chunk(delta: roleFirst(["tool_calls": [call]]), finish: nil))
        case .reasoning(let t):
            return sse(chunk(delta: roleFirst(["reasoning_content": t]), finish: nil))
        case .toolCallDelta:
            return []  // the whole call follows (see above)
        case .logprobs(let entries):
            var o = chunkBase()
            o["choices"] = [["index": 0, "delta": roleFirst([:]), "finish_reason": NSNull(),
                             "logprobs": ["content": entries.map(Self.logprob)] as JSONObject] as JSONObject]
            return sse(o)
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
    mutating func collect(_ event: ChatEvent) { collected.add(event) }

    /// `{"id","object":"chat.completion",...,"choices":[{"index":0,"message":{...},"finish_reason"}],"usage","homebase"}`
    func whole(finishReason: String, usage: Usage?) -> [UInt8] {
        let (text, calls) = (collected.text, collected.calls)
        var message: JSONObject = ["role": "assistant", "content": calls.isEmpty || !text.isEmpty ? text : NSNull()]
        if !collected.reasoning.isEmpty { message["reasoning_content"] = collected.reasoning }
        if !calls.isEmpty {
            message["tool_calls"] = calls.map { c in
                ["id": c.id, "type": "function", "function": ["name": c.name, "arguments": c.argumentsJSON]] as JSONObject
            }
        }
        var o = chunkBase()
        o["object"] = "chat.completion"
        var choice: JSONObject = ["index": 0, "message": message, "finish_reason": finishReason]
        if !collected.logprobs.isEmpty { choice["logprobs"] = ["content": collected.logprobs.map(Self.logprob)] as JSONObject }
        o["choices"] = [choice]
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

    /// `{"token","logprob","bytes","top_logprobs":[{"token","logprob","bytes"}]}` (`bytes` null when unknown).
    static func logprob(_ e: TokenLogprob) -> JSONObject {
        ["token": e.token, "logprob": e.logprob, "bytes": e.bytes.map { $0.map(Int.init) } ?? NSNull(),
         "top_logprobs": e.top.map { a in
             ["token": a.token, "logprob": a.logprob, "bytes": a.bytes.map { $0.map(Int.init) } ?? NSNull()] as JSONObject
         }]
    }

    static func usage(_ u: Usage) -> JSONObject {
        ["prompt_tokens": u.promptTokens, "completion_tokens": u.completionTokens,
         "total_tokens": u.promptTokens + u.completionTokens]
    }
}
