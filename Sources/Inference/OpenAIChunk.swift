import Foundation

// The parts of a `chat.completion.chunk` the client reads; everything else is skipped.
//
//   {"choices": [{"index": 0,
//                 "delta": {"content": "...", "reasoning_content": "..." (or "reasoning"),
//                           "tool_calls": [{"index": 0, "id": "call_1", "type": "function",
//                                           "function": {"name": "f", "arguments": "{\"a\""}}]},
//                 "logprobs": {"content": [{"token", "logprob", "bytes", "top_logprobs": [...]}]},
//                 "finish_reason": null | "stop" | "length" | "tool_calls"}],
//    "usage": {"prompt_tokens": 21, "completion_tokens": 3}}      (last chunk, choices: [])
//   {"error": {"message": "...", "type": "..."}}  or  {"error": "..."}    in-band failure

struct OpenAIChunk: Decodable {
    var choices: [Choice]?
    var usage: UsageDTO?
    var error: InBandError?

    struct Choice: Decodable {
        var delta: Delta?
        var finish_reason: String?
        var logprobs: Logprobs?
    }

    /// `{"content": [{"token", "logprob", "bytes": [..], "top_logprobs": [{"token", "logprob", "bytes"}]}]}`
    struct Logprobs: Decodable {
        var content: [Entry]?
    }

    struct Entry: Decodable {
        var token: String?
        var logprob: Double?
        var bytes: [Int]?
        var top_logprobs: [Entry]?
    }

    struct Delta: Decodable {
        var content: String?
        /// llama-server and vLLM (`reasoning_content`), Ollama's `/v1` and OpenRouter (`reasoning`).
        var reasoning_content: String?
        var reasoning: String?
        var tool_calls: [ToolCallDelta]?
    }

    struct ToolCallDelta: Decodable {
        var index: Int?
        var id: String?
        var function: FunctionDelta?
    }

    struct FunctionDelta: Decodable {
        var name: String?
        var arguments: String?
    }

    struct UsageDTO: Decodable {
        var prompt_tokens: Int?
        var completion_tokens: Int?
    }
}

/// An `error` value: a string, or an object with a `message` (else its `type`).
struct InBandError: Decodable {
    var message: String

    private enum Keys: String, CodingKey { case message, type }

    init(from decoder: Decoder) throws {
        if let s = try? decoder.singleValueContainer().decode(String.self) {
            message = s
            return
        }
        let c = try decoder.container(keyedBy: Keys.self)
        message = (try? c.decodeIfPresent(String.self, forKey: .message)) ?? nil
            ?? (try? c.decodeIfPresent(String.self, forKey: .type)) ?? nil
            ?? "unspecified error"
    }
}
