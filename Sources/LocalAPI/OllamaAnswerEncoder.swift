import Foundation
import Inference

/// Writes an answer in Ollama's `/api/chat` shapes: a pure encoder, tested without sockets.
///
/// Streamed (`application/x-ndjson`), one JSON object per line:
///   {"model","created_at","message":{"role":"assistant","content":"Hi"},"done":false}
///   {... "message":{"role":"assistant","content":"","tool_calls":[{"function":{"name","arguments":{...}}}]},"done":false}
///   {... "message":{"role":"assistant","content":""},"logprobs":[{"token","logprob","bytes","top_logprobs":[...]}],"done":false}
///   {... "message":{"role":"assistant","content":""},"done":true,"done_reason":"stop",
///        "total_duration":ns,"prompt_eval_count":n,"eval_count":n,"homebase":{"brain":...}}
/// A failure after the head: `{"error":"..."}` as the last line (what Ollama itself writes).
/// Not streamed: one object, the whole message (and every `logprobs` entry), `done: true`.
struct OllamaAnswerEncoder: Sendable {
    let model: String
    /// Set again just before the last event: a fallback may have changed who answered.
    var homebase: [String: String]
    private let started = DispatchTime.now().uptimeNanoseconds
    private var text = ""
    private var calls: [ToolCall] = []
    private var thinking = ""
    private var logprobs: [TokenLogprob] = []

    init(model: String, homebase: [String: String]) { self.model = model; self.homebase = homebase }

    static let contentType = "application/x-ndjson"

    func stream(_ event: ChatEvent) -> [UInt8] {
        switch event {
        case .text(let t): line(base(message: ["role": "assistant", "content": t], done: false))
        case .toolCall(let c): line(base(message: Self.message("", [c]), done: false))
        case .reasoning(let t): line(base(message: ["role": "assistant", "content": "", "thinking": t], done: false))
        case .toolCallDelta: []  // whole calls are written, as Ollama does
        case .logprobs(let entries):
            line(base(message: ["role": "assistant", "content": ""], done: false).merging(["logprobs": entries.map(Self.logprob)]) { $1 })
        case .done(let reason, let usage): line(final(["role": "assistant", "content": ""], reason, usage))
        }
    }

    func streamError(_ message: String) -> [UInt8] { line(["error": message]) }

    mutating func collect(_ event: ChatEvent) {
        switch event {
        case .text(let t): text += t
        case .toolCall(let c): calls.append(c)
        case .reasoning(let t): thinking += t
        case .logprobs(let entries): logprobs += entries
        case .toolCallDelta, .done: break
        }
    }

    func whole(finishReason: String, usage: Usage?) -> [UInt8] {
        var m = Self.message(text, calls)
        if !thinking.isEmpty { m["thinking"] = thinking }
        var o = final(m, finishReason, usage)
        if !logprobs.isEmpty { o["logprobs"] = logprobs.map(Self.logprob) }
        return JSONReading.bytes(o)
    }

    static func errorBody(_ message: String) -> [UInt8] { JSONReading.bytes(["error": message]) }

    private func final(_ message: JSONObject, _ reason: String, _ usage: Usage?) -> JSONObject {
        Self.finished(base(message: message, done: true), reason, usage, started: started, homebase: homebase)
    }

    /// The last object's fields, as `/api/chat` and `/api/generate` both end.
    static func finished(_ object: JSONObject, _ reason: String, _ usage: Usage?, started: UInt64,
                         homebase: [String: String]) -> JSONObject {
        var o = object
        // Ollama says "stop" where OpenAI says "tool_calls".
        o["done_reason"] = reason == "tool_calls" ? "stop" : reason
        o["total_duration"] = Int(DispatchTime.now().uptimeNanoseconds &- started)
        if let usage {
            o["prompt_eval_count"] = usage.promptTokens
            o["eval_count"] = usage.completionTokens
        }
        o["homebase"] = homebase
        return o
    }

    /// Ollama's `Logprob`: `{"token","logprob","bytes"?,"top_logprobs"?:[{"token","logprob","bytes"?}]}`
    /// (api/types.go; empty fields left out, as Ollama does).
    static func logprob(_ e: TokenLogprob) -> JSONObject {
        var o: JSONObject = ["token": e.token, "logprob": e.logprob]
        if let b = e.bytes { o["bytes"] = b.map(Int.init) }
        if !e.top.isEmpty {
            o["top_logprobs"] = e.top.map { a in
                var t: JSONObject = ["token": a.token, "logprob": a.logprob]
                if let b = a.bytes { t["bytes"] = b.map(Int.init) }
                return t
            }
        }
        return o
    }

    private static func message(_ text: String, _ calls: [ToolCall]) -> JSONObject {
        var m: JSONObject = ["role": "assistant", "content": text]
        if !calls.isEmpty {
            m["tool_calls"] = calls.map { c in
                let args = (try? JSONSerialization.jsonObject(with: Data(c.argumentsJSON.utf8))) as? JSONObject ?? [:]
                return ["function": ["name": c.name, "arguments": args] as JSONObject] as JSONObject
            }
        }
        return m
    }

    private func base(message: JSONObject, done: Bool) -> JSONObject {
        ["model": model, "created_at": Self.timestamp(), "message": message, "done": done]
    }

    private func line(_ o: JSONObject) -> [UInt8] { JSONReading.bytes(o) + [10] }

    /// RFC 3339 with nanosecond-style fraction, as Ollama writes it.
    static func timestamp() -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: Date())
    }
}
