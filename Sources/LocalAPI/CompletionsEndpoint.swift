import Foundation
import Inference

/// `POST /v1/completions` (OpenAI legacy text completion):
///   {"model", "prompt": "..." | ["..."] (one), "suffix", "max_tokens" (default 16, OpenAI's),
///    "temperature", "top_p", "stop", "seed", "presence_penalty", "frequency_penalty", "echo",
///    "stream", "stream_options": {"include_usage"}}
/// The prompt is continued (with `suffix`: its middle filled), as `TextCompletion` says.
/// `n` > 1, `best_of` > 1 and `logprobs` are refused: one answer comes from one brain.
enum CompletionsReader {
    static let defaultMaxTokens = 16

    static func read(_ body: [UInt8]) throws(LocalAPIError) -> (api: APIChatRequest, echo: String?) {
        let o = try JSONReading.object(body)
        let prompt: String
        switch o["prompt"] {
        case let s as String: prompt = s
        case let l as [String] where l.count == 1: prompt = l[0]
        case let l as [String]: throw .badRequest("prompt: one prompt per request here (got \(l.count))")
        case nil: throw .badRequest("prompt is required")
        default: throw .badRequest("prompt: a string (token arrays are not accepted)")
        }
        if let n = JSONReading.int(o["n"]), n > 1 { throw .badRequest("n: one completion per request here") }
        if let n = JSONReading.int(o["best_of"]), n > 1 { throw .badRequest("best_of: one completion per request here") }
        if let l = o["logprobs"], !(l is NSNull) { throw .badRequest("logprobs are not available on /v1/completions here") }
        var options = GenerationOptions()
        options.topP = JSONReading.double(o["top_p"])
        options.seed = JSONReading.int(o["seed"])
        options.presencePenalty = JSONReading.double(o["presence_penalty"])
        options.frequencyPenalty = JSONReading.double(o["frequency_penalty"])
        switch o["stop"] {
        case nil, is NSNull: break
        case let s as String: options.stop = [s]
        case let l as [String]: options.stop = l
        default: throw .badRequest("stop: a string or a list of strings")
        }
        let suffix = o["suffix"] as? String ?? ""
        var messages: [ChatMessage]
        var prefill: String?
        if suffix.isEmpty { (messages, prefill) = TextCompletion.continuation(prompt, system: nil) }
        else { messages = TextCompletion.fim(prefix: prompt, suffix: suffix, system: nil) }
        let chat = ChatRequest(model: o["model"] as? String ?? "", messages: messages,
                               maxTokens: JSONReading.int(o["max_tokens"]) ?? defaultMaxTokens,
                               temperature: JSONReading.double(o["temperature"]), options: options, continuation: prefill)
        let streamOptions = o["stream_options"] as? JSONObject
        return (APIChatRequest(chat: chat, stream: JSONReading.bool(o["stream"]) ?? false,
                               includeUsage: JSONReading.bool(streamOptions?["include_usage"]) ?? false),
                JSONReading.bool(o["echo"]) == true ? prompt : nil)
    }
}

/// Writes an answer in `/v1/completions` shapes:
///   data: {"id":"cmpl-…","object":"text_completion","created","model",
///          "choices":[{"text","index":0,"logprobs":null,"finish_reason":null}]}
///   data: {... "choices":[{"text":"",...,"finish_reason":"stop"}], "homebase"}   (usage too, or
///          in a last chunk with no choices when include_usage)
///   data: [DONE]
/// Whole: {"id","object":"text_completion",...,"choices":[{"text",...}],"usage","homebase"}.
struct CompletionsEncoder: AnswerEncoding {
    let model: String
    let includeUsage: Bool
    /// `echo: true`: the prompt, written before the answer.
    var echo: String?
    var homebase: [String: String]
    let id = "cmpl-" + String(UInt64.random(in: 0..<UInt64.max), radix: 36)
    let created = Int(Date().timeIntervalSince1970)
    private var text = ""

    init(model: String, includeUsage: Bool, echo: String?, homebase: [String: String]) {
        self.model = model; self.includeUsage = includeUsage; self.echo = echo; self.homebase = homebase
    }

    static let contentType = "text/event-stream"

    mutating func stream(_ event: ChatEvent) -> [UInt8] {
        var out: [UInt8] = []
        if let e = echo, !e.isEmpty { out += sse(chunk(e, finish: nil)); echo = nil }
        switch event {
        case .text(let t): out += sse(chunk(t, finish: nil))
        case .reasoning, .toolCallDelta, .toolCall, .logprobs: break  // a completion is text only
        case .done(let reason, let usage):
            var last = chunk("", finish: reason)
            last["homebase"] = homebase
            if includeUsage {
                var u = base()
                u["choices"] = [Any]()
                u["usage"] = usage.map(OpenAIAnswerEncoder.usage) ?? NSNull()
                out += sse(last) + sse(u)
            } else {
                out += sse(last)
            }
            out += Array("data: [DONE]\n\n".utf8)
        }
        return out
    }

    func keepAlive() -> [UInt8] { Array(": keep-alive\n\n".utf8) }

    func streamError(_ message: String) -> [UInt8] {
        sse(["error": ["message": message, "type": "server_error"] as JSONObject])
    }

    mutating func collect(_ event: ChatEvent) {
        if case .text(let t) = event { text += t }
    }

    func whole(finishReason: String, usage: Usage?) -> [UInt8] {
        var o = base()
        o["choices"] = [["text": (echo ?? "") + text, "index": 0, "logprobs": NSNull(), "finish_reason": finishReason] as JSONObject]
        o["usage"] = usage.map(OpenAIAnswerEncoder.usage) ?? NSNull()
        o["homebase"] = homebase
        return JSONReading.bytes(o)
    }

    static func errorBody(_ message: String) -> [UInt8] { OpenAIAnswerEncoder.errorBody(message, type: "server_error") }

    private func base() -> JSONObject { ["id": id, "object": "text_completion", "created": created, "model": model] }

    private func chunk(_ t: String, finish: String?) -> JSONObject {
        var o = base()
        o["choices"] = [["text": t, "index": 0, "logprobs": NSNull(), "finish_reason": finish ?? NSNull()] as JSONObject]
        return o
    }

    private func sse(_ o: JSONObject) -> [UInt8] { Array("data: ".utf8) + JSONReading.bytes(o) + [10, 10] }
}
