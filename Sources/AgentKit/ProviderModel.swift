import Foundation
import Inference

/// Any `ChatProvider` (the engine client, a Homebase through the relay, OpenAI, Anthropic, the
/// on-device server) as a `Model`, so every brain the router builds can drive the agent loop.
/// It holds no weights: `load` only names the model the provider is asked for.
public actor ProviderModel: Model {
    public static func availability() -> ModelAvailability { .available }
    public let runtime = RuntimeKind.remote
    public let toolFamily: ToolFamily?
    public private(set) var loadedModelID: String?
    private let provider: any ChatProvider

    /// - Parameters:
    ///   - model: the model tag the provider knows (loaded at once; `load` may rename it).
    ///   - toolFamily: nil when the provider parses calls itself (OpenAI-compatible servers
    ///     with tool support); a family when calls arrive as plain text.
    public init(provider: any ChatProvider, model: String, toolFamily: ToolFamily? = nil) {
        self.provider = provider; self.loadedModelID = model; self.toolFamily = toolFamily
    }

    /// The brain behind this model (for `status` and logs).
    public nonisolated var brain: BrainKind { provider.brain }

    public func load(_ spec: ModelSpec, from directory: URL?,
                     progress: @escaping @Sendable (Double) -> Void) async throws {
        loadedModelID = spec.id
        progress(1)
    }

    public func unload() async { loadedModelID = nil }

    public func stream(messages: [ChatMessage], tools: [ToolDefinition],
                       params: GenerationParams) -> AsyncThrowingStream<ModelEvent, Error> {
        let request = ChatRequest(model: loadedModelID ?? "", messages: messages, tools: tools,
                                  maxTokens: params.maxTokens, temperature: params.temperature)
        return Self.events(of: provider.stream(request))
    }

    /// A provider's events as a model's (every `Model` over a `ChatProvider` uses this): text and
    /// whole calls as they come, `.done` as the final metrics; a provider stream that ends
    /// without `.done` fails with `InferenceError.interrupted`. Cancelling the turn cancels it.
    public static func events(of upstream: AsyncThrowingStream<ChatEvent, Error>) -> AsyncThrowingStream<ModelEvent, Error> {
        let (stream, continuation) = AsyncThrowingStream<ModelEvent, Error>.makeStream()
        let task = Task.detached {
            do {
                for try await event in upstream {
                    try Task.checkCancellation()
                    switch event {
                    case .text(let text): continuation.yield(.text(text))
                    case .toolCall(let call): continuation.yield(.toolCall(call))
                    case .toolCallDelta, .reasoning, .logprobs: continue  // the agent acts on whole calls and answer text
                    case let .done(reason, usage):
                        continuation.yield(.metrics(ModelMetrics(
                            isFinal: true, promptTokens: usage?.promptTokens,
                            completionTokens: usage?.completionTokens, finishReason: reason)))
                        continuation.finish()
                        return
                    }
                }
                try Task.checkCancellation()
                continuation.finish(throwing: InferenceError.interrupted)
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
