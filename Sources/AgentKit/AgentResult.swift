import Inference

/// Settings of an agent run. Every limit is here so tests can shrink it.
public struct AgentConfig: Sendable {
    public var params: GenerationParams
    /// Prepended as a `system` message unless the conversation already starts with one.
    public var systemPrompt: String?
    /// Longest cycle of calls the loop detector looks for (see `LoopDetector`).
    public var maxLoopPeriod: Int

    public init(params: GenerationParams = GenerationParams(), systemPrompt: String? = nil,
                maxLoopPeriod: Int = 4) {
        self.params = params; self.systemPrompt = systemPrompt; self.maxLoopPeriod = maxLoopPeriod
    }
}

/// One executed (or refused) call and what the model was told.
public struct ToolResult: Sendable, Equatable {
    public var call: ToolCall
    public var output: String
    /// The output is an error the model should correct (bad arguments, refused path, loop...).
    public var isError: Bool
}

/// What the agent reports while it runs, in order.
public enum AgentEvent: Sendable, Equatable {
    /// Answer text as the model streams it (tool-call text is not included).
    case text(String)
    case toolCall(ToolCall)
    case toolResult(ToolResult)
}

/// How a run ended.
public struct AgentResult: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
        /// The model answered without calling a tool.
        case answered
        /// The model kept repeating a call after being told once to answer; the run stopped.
        case loopDetected(toolName: String)
    }

    public var outcome: Outcome
    /// The final answer's text (for `loopDetected`, whatever the last turn said, maybe empty).
    public var answer: String
    /// Model turns taken.
    public var iterations: Int
    public var toolResults: [ToolResult]
    /// `fake` for the scripted FakeModel: a result that never came from real inference.
    public var runtime: RuntimeKind
    public var modelID: String
    /// The whole conversation, tool messages included, as the model saw it.
    public var transcript: [ChatMessage]

    /// One line for people.
    public var summary: String {
        switch outcome {
        case .answered:
            "answered after \(iterations) turn(s) and \(toolResults.count) tool call(s) by \(modelID) [\(runtime.rawValue)]"
        case .loopDetected(let tool):
            "stopped: the model kept repeating the call \(tool) with the same arguments after it was told to answer"
        }
    }
}
