import Inference

extension FakeModel {
    public func stream(messages: [ChatMessage], tools: [ToolDefinition],
                       params: GenerationParams) -> AsyncThrowingStream<ModelEvent, Error> {
        recordPrompt(messages)
        let events = render(nextStep(), messages: messages)
        let (stream, continuation) = AsyncThrowingStream<ModelEvent, Error>.makeStream()
        let delay = self.delay, counter = emitted
        let task = Task.detached {
            var words = 0
            for event in events {
                // Between tokens: a cancelled consumer stops the script here.
                if Task.isCancelled { break }
                continuation.yield(event)
                if case .text = event { words += 1; counter.increment() }
                if delay > .zero {
                    do { try await Task.sleep(for: delay) } catch { break }
                }
            }
            if !Task.isCancelled {
                continuation.yield(.metrics(ModelMetrics(isFinal: true, completionTokens: words,
                                                         finishReason: "stop")))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        setProducer(task)
        return stream
    }

    /// Splits text into word tokens, each keeping its trailing whitespace ("a b" -> "a ", "b").
    static func words(_ text: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        for c in text {
            if c.isWhitespace { current.append(c); continue }
            if let last = current.last, last.isWhitespace { tokens.append(current); current = "" }
            current.append(c)
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens
    }

    /// A step as the model would write it in its dialect.
    static func text(of calls: [ScriptedCall], in family: ToolFamily) -> String {
        func object(_ c: ScriptedCall, _ key: String) -> String {
            #"{"name": "\#(c.name)", "\#(key)": \#(c.argumentsJSON)}"#
        }
        switch family {
        case .hermes:
            return calls.map { "<tool_call>\n" + object($0, "arguments") + "\n</tool_call>" }.joined(separator: "\n")
        case .llama3:
            return "<|python_tag|>" + calls.map { object($0, "parameters") }.joined(separator: "; ")
        case .mistral:
            return "[TOOL_CALLS][" + calls.map { object($0, "arguments") }.joined(separator: ", ") + "]"
        case .generic:
            return calls.map { object($0, "arguments") }.joined(separator: "\n")
        }
    }

    private func render(_ step: Step?, messages: [ChatMessage]) -> [ModelEvent] {
        switch step {
        case nil:
            return Self.words(fallback).map(ModelEvent.text)
        case .answer(let text), .raw(let text):
            return Self.words(text).map(ModelEvent.text)
        case .echoLastToolResult(let prefix, let suffix):
            let result = messages.last { $0.role == .tool }?.content ?? "(no tool result)"
            return Self.words(prefix + result + suffix).map(ModelEvent.text)
        case .toolCalls(let calls):
            guard let family = toolFamily else {
                return calls.enumerated().map { i, c in
                    .toolCall(ToolCall(id: "fake_\(prompts.count)_\(i + 1)", name: c.name, argumentsJSON: c.argumentsJSON))
                }
            }
            return Self.words(Self.text(of: calls, in: family)).map(ModelEvent.text)
        }
    }
}
