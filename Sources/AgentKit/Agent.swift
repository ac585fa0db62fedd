import Inference

/// The guest's agent loop: model turn, tool calls, results back, until the model answers.
///
/// There is no iteration cap: a `LoopDetector` stops runs that repeat themselves instead. The
/// first repeat is not run; the model is told (once) that it repeats and must answer now. A
/// second repeat ends the run with `.loopDetected`.
public struct Agent: Sendable {
    public let model: any Model
    public let tools: [any Tool]
    public let config: AgentConfig

    public init(model: any Model, tools: [any Tool], config: AgentConfig = AgentConfig()) {
        self.model = model; self.tools = tools; self.config = config
    }

    /// The tool message the model gets, once, for a repeated call.
    public static let loopWarning = "This call repeats an earlier call with the same arguments, so it was not run "
        + "again. Do not call any more tools: answer now with what you already have."

    /// Runs the conversation to an answer. `onEvent` sees text, calls and results as they happen.
    /// - Throws: `AgentError.notLoaded`, `.model`, `.interrupted`, `.cancelled`.
    public func run(_ messages: [ChatMessage],
                    onEvent: @escaping @Sendable (AgentEvent) -> Void = { _ in }) async throws -> AgentResult {
        guard let modelID = await model.loadedModelID else { throw AgentError.notLoaded }
        var result = AgentResult(outcome: .answered, answer: "", iterations: 0, toolResults: [],
                                 runtime: await model.runtime, modelID: modelID, transcript: messages)
        if let system = config.systemPrompt, messages.first?.role != .system {
            result.transcript.insert(ChatMessage(role: .system, content: system), at: 0)
        }
        var detector = LoopDetector(maxPeriod: config.maxLoopPeriod)
        var warned = false
        while true {
            result.iterations += 1
            let turn = try await self.turn(result.transcript, iteration: result.iterations, onEvent: onEvent)
            result.answer = turn.text
            result.transcript.append(ChatMessage(role: .assistant, content: turn.text,
                                                 toolCalls: turn.calls.map(\.call)))
            if turn.calls.isEmpty { return result }
            for pending in turn.calls {
                let output: ToolResult
                if detector.record(pending.call) {
                    if warned {
                        result.outcome = .loopDetected(toolName: pending.call.name)
                        return result
                    }
                    warned = true
                    output = ToolResult(call: pending.call, output: Self.loopWarning, isError: true)
                } else {
                    output = await execute(pending)
                }
                if Task.isCancelled { throw AgentError.cancelled }
                onEvent(.toolResult(output))
                result.toolResults.append(output)
                result.transcript.append(ChatMessage(role: .tool, content: output.output,
                                                     toolCallID: pending.call.id))
            }
        }
    }
}
