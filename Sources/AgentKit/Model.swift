// A runtime that turns a conversation into a stream of events: llama.cpp, a remote provider, the
// scripted FakeModel. The agent loop drives any of them the same way.
//
// # Writing a new runtime (under a page)
//
// 1. Make an actor that conforms to `Model`. It owns the loaded weights (or a handle on the
//    process or server that does); `loadedModelID` is nil until `load` succeeds.
// 2. `availability()` is static and cheap: say why the runtime cannot run here, in words a
//    person can act on ("llama-server not found: install it with make engine").
// 3. `load(_:from:progress:)` reads `spec` (see `ModelSpec`: file, context, template arguments)
//    from `directory`, reports progress in 0...1, and throws `AgentError` on failure.
// 4. `stream(messages:tools:params:)` returns at once; a task you start produces events:
//    `.text` deltas, `.toolCall` only if your runtime parses calls natively (then
//    `toolFamily` is nil; otherwise name the family and the agent parses your text), and
//    finally exactly one `.metrics` with `isFinal == true`. A stream without it is interrupted.
// 5. Honour cancellation between tokens: in `onTermination` cancel your producing task, and
//    check `Task.isCancelled` (or sleep with `Task.sleep`) before each yield.
//
// ```swift
// actor EchoModel: Model {
//     static func availability() -> ModelAvailability { .available }
//     let runtime = RuntimeKind.remote
//     let toolFamily: ToolFamily? = nil
//     private(set) var loadedModelID: String?
//     func load(_ spec: ModelSpec, from directory: URL?,
//               progress: @escaping @Sendable (Double) -> Void) async throws {
//         loadedModelID = spec.id; progress(1)
//     }
//     func unload() async { loadedModelID = nil }
//     func stream(messages: [ChatMessage], tools: [ToolDefinition],
//                 params: GenerationParams) -> AsyncThrowingStream<ModelEvent, Error> {
//         let last = messages.last?.content ?? ""
//         return AsyncThrowingStream { continuation in
//             let task = Task {
//                 for word in last.split(separator: " ") {
//                     if Task.isCancelled { break }
//                     continuation.yield(.text(word + " "))
//                 }
//                 continuation.yield(.metrics(ModelMetrics(isFinal: true, finishReason: "stop")))
//                 continuation.finish()
//             }
//             continuation.onTermination = { _ in task.cancel() }
//         }
//     }
// }
// ```
// Then `Agent(model: EchoModel(), tools: [CurrentTimeTool()]).run([...])`.

import Foundation
import Inference

/// Which kind of runtime executes a model; carried into every agent result.
public enum RuntimeKind: String, Sendable, Equatable, Codable {
    /// llama.cpp (`llama-server`) serving a GGUF file from the model store.
    case gguf
    /// A provider reached over HTTP (Ollama, a Homebase, OpenAI...): holds no weights here.
    case remote
    /// The scripted FakeModel: never real inference.
    case fake
}

/// Whether a runtime can run on this machine; `reason` is for people.
public enum ModelAvailability: Sendable, Equatable {
    case available
    case unavailable(reason: String)
}

/// Sampling and length settings for one model turn.
public struct GenerationParams: Sendable, Equatable {
    public var maxTokens: Int?
    public var temperature: Double?
    /// Passed to the chat template (for example `enable_thinking: false`).
    public var chatTemplateArguments: [String: TemplateArgument]

    public init(maxTokens: Int? = nil, temperature: Double? = nil,
                chatTemplateArguments: [String: TemplateArgument] = [:]) {
        self.maxTokens = maxTokens; self.temperature = temperature
        self.chatTemplateArguments = chatTemplateArguments
    }
}

/// Counts and timings of a turn; the last event of every complete stream has `isFinal == true`.
public struct ModelMetrics: Sendable, Equatable {
    public var isFinal: Bool
    public var promptTokens: Int?
    public var completionTokens: Int?
    public var tokensPerSecond: Double?
    /// `stop`, `length`, `tool_calls`... as the runtime reports it (final metrics only).
    public var finishReason: String?

    public init(isFinal: Bool, promptTokens: Int? = nil, completionTokens: Int? = nil,
                tokensPerSecond: Double? = nil, finishReason: String? = nil) {
        self.isFinal = isFinal; self.promptTokens = promptTokens
        self.completionTokens = completionTokens; self.tokensPerSecond = tokensPerSecond
        self.finishReason = finishReason
    }
}

/// What a model's stream yields.
public enum ModelEvent: Sendable, Equatable {
    /// A piece of the answer's text (tool calls in a text dialect arrive here too).
    case text(String)
    /// A tool call the runtime parsed itself (native tool calling).
    case toolCall(ToolCall)
    case metrics(ModelMetrics)
}

/// A runtime that holds (or reaches) one model at a time. See the top of this file.
public protocol Model: Actor {
    /// Why this runtime can or cannot run on this machine.
    static func availability() -> ModelAvailability
    var runtime: RuntimeKind { get }
    /// The id of the loaded model, nil when none is loaded.
    var loadedModelID: String? { get }
    /// The dialect of tool calls in the text; nil when the runtime emits `.toolCall` natively.
    var toolFamily: ToolFamily? { get }
    /// Loads `spec` from `directory` (nil for runtimes without local files); `progress` in 0...1.
    func load(_ spec: ModelSpec, from directory: URL?,
              progress: @escaping @Sendable (Double) -> Void) async throws
    func unload() async
    /// One model turn. Cancelling the consuming task stops generation between tokens.
    func stream(messages: [ChatMessage], tools: [ToolDefinition],
                params: GenerationParams) -> AsyncThrowingStream<ModelEvent, Error>
}
