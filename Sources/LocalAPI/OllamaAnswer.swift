import Foundation
import Inference

/// What the two Ollama encoders (`/api/chat`, `/api/generate`) hold and write alike: the model
/// and `homebase` object of every object, the clock `total_duration` counts from, what a
/// non-streamed answer collects, the last object's fields and the NDJSON line. They differ in
/// where the text goes (`message` or `response`) and in tool calls (generate sends no tools).
struct OllamaAnswer: Sendable {
    let model: String
    /// Set again just before the last event: a fallback may have changed who answered.
    var homebase: [String: String]
    private let started = DispatchTime.now().uptimeNanoseconds
    var collected = CollectedAnswer()

    init(model: String, homebase: [String: String]) { self.model = model; self.homebase = homebase }

    /// An object's first fields, the text under `key` (`message` or `response`).
    func base(_ key: String, _ value: Any, done: Bool) -> JSONObject {
        ["model": model, "created_at": Self.timestamp(), key: value, "done": done]
    }

    /// The last object's fields, as `/api/chat` and `/api/generate` both end.
    func finished(_ object: JSONObject, _ reason: String, _ usage: Usage?) -> JSONObject {
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

    static func line(_ o: JSONObject) -> [UInt8] { JSONReading.bytes(o) + [10] }

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

    /// RFC 3339 with nanosecond-style fraction, as Ollama writes it.
    static func timestamp() -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: Date())
    }
}

/// An Ollama encoder: its state is an `OllamaAnswer`; the content type, the `homebase` object,
/// collecting and the error line are the same for both.
protocol OllamaEncoding: AnswerEncoding {
    var answer: OllamaAnswer { get set }
}

extension OllamaEncoding {
    static var contentType: String { "application/x-ndjson" }

    var homebase: [String: String] {
        get { answer.homebase }
        set { answer.homebase = newValue }
    }

    /// A failure after the head: `{"error":"..."}` as the last line (what Ollama itself writes).
    func streamError(_ message: String) -> [UInt8] { line(["error": message]) }

    func line(_ o: JSONObject) -> [UInt8] { OllamaAnswer.line(o) }

    mutating func collect(_ event: ChatEvent) { answer.collected.add(event) }

    static func errorBody(_ message: String) -> [UInt8] { JSONReading.bytes(["error": message]) }
}
