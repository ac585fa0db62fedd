import Inference

/// One streamed answer straight from the engine, no Homebase and no relay: the "engine alone"
/// the benches set beside the product. When the call started, its first text, its end, and the
/// usage the engine reported.
public struct DirectAnswer: Sendable {
    public let start: ContinuousClock.Instant
    public let first: ContinuousClock.Instant?
    public let end: ContinuousClock.Instant
    public let usage: Usage?

    public static func stream(_ client: OpenAIChatClient, prompt: String, maxTokens: Int,
                              temperature: Double) async throws -> DirectAnswer {
        let start = ContinuousClock.now
        var first: ContinuousClock.Instant?, usage: Usage?
        for try await e in client.stream(ChatRequest(model: "tiny", messages: [.init(role: .user, content: prompt)],
                                                     maxTokens: maxTokens, temperature: temperature)) {
            switch e {
            case .text(let t) where !t.isEmpty: if first == nil { first = .now }
            case .done(_, let u): usage = u
            default: break
            }
        }
        return DirectAnswer(start: start, first: first, end: .now, usage: usage)
    }
}
