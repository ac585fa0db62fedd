import Foundation
import Inference
import Synchronization

/// A scripted model for tests, previews and `--demo-model`. Never real inference and never
/// used by a benchmark: its id is `fake (scripted)` and its runtime kind `fake`, which every
/// agent result carries.
///
/// Each turn plays the next script step word by word (a configurable delay between words),
/// then a fallback reply once the script has run out. It records every prompt it was given.
public actor FakeModel: Model {
    /// The id every output shows.
    public static let modelID = "fake (scripted)"

    /// One scripted turn.
    public enum Step: Sendable, Equatable {
        /// A plain answer.
        case answer(String)
        /// Tool calls (name, arguments JSON), written in the model's dialect or emitted natively.
        case toolCalls([ScriptedCall])
        /// An answer built around the last tool result in the prompt: `prefix + result + suffix`.
        case echoLastToolResult(prefix: String, suffix: String)
        /// Text written as is: lets tests feed the dialect parser anything, broken calls included.
        case raw(String)

        /// One call.
        public static func toolCall(_ name: String, _ argumentsJSON: String) -> Step {
            .toolCalls([ScriptedCall(name: name, argumentsJSON: argumentsJSON)])
        }
    }

    public struct ScriptedCall: Sendable, Equatable {
        public var name: String
        public var argumentsJSON: String
        public init(name: String, argumentsJSON: String) { self.name = name; self.argumentsJSON = argumentsJSON }
    }

    public static func availability() -> ModelAvailability { .available }
    public let runtime = RuntimeKind.fake
    /// The dialect its calls are written in; nil emits them as native `.toolCall` events.
    public let toolFamily: ToolFamily?
    public private(set) var loadedModelID: String? = FakeModel.modelID
    /// Every prompt seen, one entry per turn.
    public private(set) var prompts: [[ChatMessage]] = []
    private var script: [Step]
    let fallback: String
    let delay: Duration
    private var producer: Task<Void, Never>?
    let emitted = TokenCounter()

    /// - Parameters:
    ///   - dialect: how calls are written (`nil`: native events, no text to parse).
    ///   - delay: pause after each emitted word (zero in most tests).
    public init(script: [Step], dialect: ToolFamily? = .hermes, delay: Duration = .zero,
                fallback: String = "(scripted demo model: no more scripted replies)") {
        self.script = script; self.toolFamily = dialect; self.delay = delay; self.fallback = fallback
    }

    /// Text tokens emitted so far, across all turns (read at any time, from any task).
    public nonisolated var emittedTokens: Int { emitted.value }

    /// Waits until the last stream's producer has stopped (finished or cancelled).
    public func waitUntilIdle() async { await producer?.value }

    public func load(_ spec: ModelSpec, from directory: URL?,
                     progress: @escaping @Sendable (Double) -> Void) async throws {
        progress(1)
        loadedModelID = Self.modelID  // whatever the spec, it stays labelled as scripted
    }

    public func unload() async { loadedModelID = nil }

    func recordPrompt(_ messages: [ChatMessage]) { prompts.append(messages) }
    func nextStep() -> Step? { script.isEmpty ? nil : script.removeFirst() }
    func setProducer(_ task: Task<Void, Never>) { producer = task }
}

/// A counter any task may bump or read.
final class TokenCounter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}
