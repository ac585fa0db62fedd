import Foundation
import Inference

/// `POST /api/generate` (Ollama):
///   {"model", "prompt", "suffix", "system", "raw", "images": [base64], "format": "json" | {schema},
///    "options": {...}, "stream" (default true), "think", "keep_alive", "context"}
/// Without `suffix` or `raw`: the prompt is one user turn (as Ollama's chat template makes it).
/// With `suffix`: fill-in-the-middle, with `raw`: a continuation (both in `TextCompletion`).
/// An empty prompt with no suffix and no images is Ollama's "load the model": answered at once
/// with `done_reason: "load"`. `template` cannot be applied (the brains apply their own) and is
/// refused; `context` and `keep_alive` are accepted and not used; `think` as on `/api/chat`.
enum OllamaGenerateReader {
    /// nil request: the "load" probe.
    static func read(_ body: [UInt8]) throws(LocalAPIError) -> (api: APIChatRequest?, model: String) {
        let o = try JSONReading.object(body)
        guard let model = o["model"] as? String, !model.isEmpty else { throw .badRequest("model is required") }
        if let t = o["template"] as? String, !t.isEmpty {
            throw .badRequest("template cannot be applied here: the brains apply their own chat template (send raw: true to skip it)")
        }
        let prompt = o["prompt"] as? String ?? ""
        let suffix = o["suffix"] as? String ?? ""
        let system = o["system"] as? String
        let images = try ((o["images"] as? [String]) ?? []).map { s throws(LocalAPIError) in try ContentReading.base64Image(s) }
        if prompt.isEmpty, suffix.isEmpty, images.isEmpty { return (nil, model) }
        var messages: [ChatMessage]
        var prefill: String?
        if !suffix.isEmpty {
            messages = TextCompletion.fim(prefix: prompt, suffix: suffix, system: system)
        } else if JSONReading.bool(o["raw"]) == true {
            (messages, prefill) = TextCompletion.continuation(prompt, system: system)
        } else {
            messages = []
            if let system, !system.isEmpty { messages.append(ChatMessage(role: .system, content: system)) }
            messages.append(ChatMessage(role: .user, parts: (prompt.isEmpty ? [] : [.text(prompt)])))
        }
        if !images.isEmpty {
            let i = messages.count - 1
            messages[i].parts += images.map { .image($0) }
        }
        var chat = ChatRequest(model: model, messages: messages, continuation: prefill)
        var options = GenerationOptions()
        try OllamaOptions.read(o["options"], into: &chat, &options)
        options.responseFormat = try OllamaOptions.format(o["format"])
        try OllamaOptions.think(o["think"], into: &options)
        chat.options = options
        return (APIChatRequest(chat: chat, stream: JSONReading.bool(o["stream"]) ?? true, includeUsage: true), model)
    }
}

/// Writes an answer in `/api/generate` shapes (NDJSON, as `/api/chat` but `response` for
/// `message`):
///   {"model","created_at","response":"Hi","done":false}           ({"thinking": ...} for reasoning,
///                                                                  {"logprobs": [...]} as /api/chat)
///   {"model","created_at","response":"","done":true,"done_reason","total_duration",
///    "prompt_eval_count","eval_count","homebase"}
/// Tools are not sent with generate, so no tool call comes back to write.
struct OllamaGenerateEncoder: OllamaEncoding {
    var answer: OllamaAnswer

    init(model: String, homebase: [String: String]) { answer = OllamaAnswer(model: model, homebase: homebase) }

    func stream(_ event: ChatEvent) -> [UInt8] {
        switch event {
        case .text(let t): line(base(response: t, done: false))
        case .reasoning(let t):
            line(base(response: "", done: false).merging(["thinking": t]) { $1 })
        case .logprobs(let entries):
            line(base(response: "", done: false).merging(["logprobs": entries.map(OllamaAnswer.logprob)]) { $1 })
        case .toolCallDelta, .toolCall: []
        case .done(let reason, let usage): line(answer.finished(base(response: "", done: true), reason, usage))
        }
    }

    func keepAlive() -> [UInt8] { line(base(response: "", done: false)) }

    func whole(finishReason: String, usage: Usage?) -> [UInt8] {
        let c = answer.collected
        var o = base(response: c.text, done: true)
        if !c.reasoning.isEmpty { o["thinking"] = c.reasoning }
        if !c.logprobs.isEmpty { o["logprobs"] = c.logprobs.map(OllamaAnswer.logprob) }
        return JSONReading.bytes(answer.finished(o, finishReason, usage))
    }

    /// The answer to an empty prompt: the model is "loaded" (brains here are always ready).
    static func loaded(model: String) -> [UInt8] {
        JSONReading.bytes(["model": model, "created_at": OllamaAnswer.timestamp(), "response": "", "done": true,
                           "done_reason": "load"])
    }

    private func base(response: String, done: Bool) -> JSONObject { answer.base("response", response, done: done) }
}
