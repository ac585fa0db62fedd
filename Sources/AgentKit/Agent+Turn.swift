import Inference

/// A call as the turn produced it: well formed, or refused before it runs.
struct PendingCall: Sendable {
    var call: ToolCall
    /// Why the call's text could not be parsed; nil for a good call.
    var malformedReason: String?
}

extension Agent {
    struct Turn: Sendable {
        var text = ""
        var calls: [PendingCall] = []
    }

    /// One model turn: streams it, parses calls out of the text in the model's dialect.
    func turn(_ transcript: [ChatMessage], iteration: Int,
              onEvent: @Sendable (AgentEvent) -> Void) async throws -> Turn {
        let family = await model.toolFamily
        var parser = family.map { ToolCallParser(family: $0, idPrefix: "call_\(iteration)_") }
        let stream = await model.stream(messages: transcript, tools: tools.map(\.definition),
                                        params: config.params)
        var turn = Turn()
        var sawFinal = false
        do {
            for try await event in stream {
                switch event {
                case .text(let chunk):
                    if parser == nil { add(.text(chunk), to: &turn, iteration: iteration, onEvent) }
                    else { for e in parser!.feed(chunk) { add(e, to: &turn, iteration: iteration, onEvent) } }
                case .toolCall(var call):
                    if call.id.isEmpty { call.id = "call_\(iteration)_n\(turn.calls.count + 1)" }
                    add(.toolCall(call), to: &turn, iteration: iteration, onEvent)
                case .metrics(let metrics):
                    if metrics.isFinal { sawFinal = true }
                }
            }
        } catch let error as AgentError {
            throw error
        } catch is CancellationError {
            throw AgentError.cancelled
        } catch {
            throw AgentError.model(String(describing: error))
        }
        if Task.isCancelled { throw AgentError.cancelled }
        guard sawFinal else { throw AgentError.interrupted }
        for e in parser?.finish() ?? [] { add(e, to: &turn, iteration: iteration, onEvent) }
        turn.text = turn.text.trimmingSpaces
        return turn
    }

    private func add(_ event: ParsedEvent, to turn: inout Turn, iteration: Int,
                     _ onEvent: @Sendable (AgentEvent) -> Void) {
        switch event {
        case .text(let text):
            turn.text += text
            onEvent(.text(text))
        case .toolCall(let call):
            turn.calls.append(PendingCall(call: call))
            onEvent(.toolCall(call))
        case let .malformed(reason, name, _):
            // Arguments "{}": the broken text must not reach a template that parses arguments.
            let call = ToolCall(id: "call_\(iteration)_bad\(turn.calls.count + 1)",
                                name: name ?? "invalid_tool_call", argumentsJSON: "{}")
            turn.calls.append(PendingCall(call: call, malformedReason: reason))
            onEvent(.toolCall(call))
        }
    }
}
