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
struct OllamaAnswerEncoder: OllamaEncoding {
    var answer: OllamaAnswer

    init(model: String, homebase: [String: String]) { answer = OllamaAnswer(model: model, homebase: homebase) }

    func stream(_ event: ChatEvent) -> [UInt8] {
        switch event {
        case .text(let t): line(base(message: ["role": "assistant", "content": t], done: false))
        case .toolCall(let c): line(base(message: Self.message("", [c]), done: false))
        case .reasoning(let t): line(base(message: ["role": "assistant", "content": "", "thinking": t], done: false))
        case .toolCallDelta: []  // whole calls are written, as Ollama does
        case .logprobs(let entries):
            line(base(message: ["role": "assistant", "content": ""], done: false).merging(["logprobs": entries.map(OllamaAnswer.logprob)]) { $1 })
        case .done(let reason, let usage): line(final(["role": "assistant", "content": ""], reason, usage))
        }
    }

    /// An empty assistant delta with `done: false`: Ollama's clients parse every line as JSON
    /// (a blank line or a comment would break them) and add the empty content to nothing.
    func keepAlive() -> [UInt8] { line(base(message: ["role": "assistant", "content": ""], done: false)) }

    func whole(finishReason: String, usage: Usage?) -> [UInt8] {
        let c = answer.collected
        var m = Self.message(c.text, c.calls)
        if !c.reasoning.isEmpty { m["thinking"] = c.reasoning }
        var o = final(m, finishReason, usage)
        if !c.logprobs.isEmpty { o["logprobs"] = c.logprobs.map(OllamaAnswer.logprob) }
        return JSONReading.bytes(o)
    }

    private func final(_ message: JSONObject, _ reason: String, _ usage: Usage?) -> JSONObject {
        answer.finished(base(message: message, done: true), reason, usage)
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

    private func base(message: JSONObject, done: Bool) -> JSONObject { answer.base("message", message, done: done) }
}
