import Inference

/// What the answer runner needs of an API's encoder (OpenAI or Ollama shapes).
protocol AnswerEncoding: Sendable {
    /// Content type of a streamed answer.
    static var contentType: String { get }
    /// The `homebase` object of the last event (or of the whole answer).
    var homebase: [String: String] { get set }
    /// Bytes of one event of a streamed answer.
    mutating func stream(_ event: ChatEvent) -> [UInt8]
    /// Bytes that keep a waiting client from giving up while the first token is slow, valid in
    /// the stream's shape and meaning nothing (an SSE comment, a `ping`, an empty delta). The
    /// first one may also open the stream (`message_start`, `response.created`).
    mutating func keepAlive() -> [UInt8]
    /// The last bytes of a streamed answer that failed after its head.
    func streamError(_ message: String) -> [UInt8]
    /// Non-streamed: one event into the answer being collected.
    mutating func collect(_ event: ChatEvent)
    /// Non-streamed: the complete answer body.
    func whole(finishReason: String, usage: Usage?) -> [UInt8]
    /// The body of an answer that failed before anything was sent.
    static func errorBody(_ message: String) -> [UInt8]
}

extension OpenAIAnswerEncoder: AnswerEncoding {
    static func errorBody(_ message: String) -> [UInt8] { errorBody(message, type: "server_error") }
    /// An SSE comment: every SSE reader skips it.
    func keepAlive() -> [UInt8] { Array(": keep-alive\n\n".utf8) }
}

extension AnthropicMessagesEncoder: AnswerEncoding {}
extension ResponsesEncoder: AnswerEncoding {}

/// A non-streamed answer as the encoders collect it: the text, the whole tool calls, the
/// reasoning and the log probabilities, each in the order they came (deltas are not kept).
struct CollectedAnswer: Sendable {
    private(set) var text = ""
    private(set) var calls: [ToolCall] = []
    private(set) var reasoning = ""
    private(set) var logprobs: [TokenLogprob] = []

    mutating func add(_ event: ChatEvent) {
        switch event {
        case .text(let t): text += t
        case .toolCall(let c): calls.append(c)
        case .reasoning(let t): reasoning += t
        case .logprobs(let entries): logprobs += entries
        case .toolCallDelta, .done: break
        }
    }
}
