import Inference

/// What the answer runner needs of an API's encoder (OpenAI or Ollama shapes).
protocol AnswerEncoding: Sendable {
    /// Content type of a streamed answer.
    static var contentType: String { get }
    /// The `homebase` object of the last event (or of the whole answer).
    var homebase: [String: String] { get set }
    /// Bytes of one event of a streamed answer.
    mutating func stream(_ event: ChatEvent) -> [UInt8]
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
}

extension OllamaAnswerEncoder: AnswerEncoding {}
