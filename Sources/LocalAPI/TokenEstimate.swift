import Inference

/// `POST /v1/messages/count_tokens`: an estimate, not the model's tokenizer. The brain that
/// would answer may be a Homebase behind the relay, and the relay carries no tokenize request;
/// so every text (system, messages, tool calls and results, tool schemas) counts one token per
/// `bytesPerToken` UTF-8 bytes, rounded up, plus `perMessage` for each message's framing, and
/// each image `perImage` (about what Anthropic charges for a 1,000-pixel-square image).
enum TokenEstimate {
    static let bytesPerToken = 4
    static let perMessage = 4
    static let perImage = 1_300

    static func count(_ chat: ChatRequest) -> Int {
        var bytes = 0, extra = 0
        for m in chat.messages {
            extra += perMessage
            for p in m.parts {
                switch p {
                case .text(let t): bytes += t.utf8.count
                case .image: extra += perImage
                }
            }
            for c in m.toolCalls { bytes += c.name.utf8.count + c.argumentsJSON.utf8.count }
        }
        for t in chat.tools { bytes += t.name.utf8.count + t.description.utf8.count + t.parametersJSON.utf8.count }
        return (bytes + bytesPerToken - 1) / bytesPerToken + extra
    }
}
