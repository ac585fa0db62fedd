import AgentKit
import Foundation
import Inference
import Synchronization

/// AgentKit's `Model` on the routed brain, for `guest chat --tools` (#23): each model turn goes
/// where the router sends a request with tools (the Homebase whose model can use them, a chosen
/// cloud, else this device), through the same fallback runner as every answer. Only the turns
/// travel: the agent loop and its tools run here, on this device.
public actor RoutedAgentModel: Model {
    public static func availability() -> ModelAvailability { .available }
    public let runtime = AgentKit.RuntimeKind.remote
    /// Brains that parse calls natively send them whole; a model that writes them as text
    /// (hermes style, as the on-device default) is parsed too.
    public let toolFamily: ToolFamily? = .hermes
    public private(set) var loadedModelID: String?
    private let runner: AnswerRunner
    private let last = LastTurn()

    /// `model`: the name requests carry when the route does not pin one.
    public init(runner: AnswerRunner, model: String) {
        self.runner = runner
        loadedModelID = model
    }

    /// The metadata of the last turn (its brain, any fallback), for the summary line.
    public nonisolated var lastTurn: AnswerMetadata? { last.value.withLock { $0 } }

    public func load(_ spec: ModelSpec, from directory: URL?, progress: @escaping @Sendable (Double) -> Void) async throws {
        loadedModelID = spec.id
        progress(1)
    }

    public func unload() async { loadedModelID = nil }

    /// One turn through the runner: text and whole calls as they come, then the final metrics.
    /// A refusal (no brain can use tools) fails the turn with its words.
    public func stream(messages: [ChatMessage], tools: [ToolDefinition],
                       params: GenerationParams) -> AsyncThrowingStream<ModelEvent, Error> {
        let request = ChatRequest(model: loadedModelID ?? "default", messages: messages, tools: tools,
                                  maxTokens: params.maxTokens, temperature: params.temperature)
        let (stream, out) = AsyncThrowingStream<ModelEvent, Error>.makeStream()
        let task = Task { [runner, last] in
            do {
                let answer = try await runner.run(request, onText: { out.yield(.text($0)) },
                                                  onToolCall: { out.yield(.toolCall($0)) })
                last.value.withLock { $0 = answer.metadata }
                let m = answer.metadata
                out.yield(.metrics(ModelMetrics(isFinal: true, promptTokens: m.promptTokens, completionTokens: m.completionTokens,
                                                finishReason: m.finishReason)))
                out.finish()
            } catch {
                out.finish(throwing: error)
            }
        }
        out.onTermination = { _ in task.cancel() }
        return stream
    }
}

/// The last turn's metadata, shared between the actor and its turn tasks.
private final class LastTurn: Sendable {
    let value = Mutex<AnswerMetadata?>(nil)
}
