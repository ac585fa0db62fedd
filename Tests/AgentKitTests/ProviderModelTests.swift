import AgentKit
import Inference
import Testing

/// A provider that plays fixed events (and may stop without `.done`).
struct StubProvider: ChatProvider {
    let brain = BrainKind.localEndpoint
    let events: [ChatEvent]
    func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error> {
        AsyncThrowingStream { continuation in
            for e in events { continuation.yield(e) }
            continuation.finish()
        }
    }
}

@Suite struct ProviderModelTests {
    private let ask = [ChatMessage(role: .user, content: "q")]

    @Test func aProviderDrivesTheLoopWithNativeCalls() async throws {
        let call = ToolCall(id: "p1", name: "counter", argumentsJSON: "{}")
        // The stub answers every turn the same, so the second turn repeats the call: the loop
        // detector must end it, which proves native calls go through the same path.
        let model = ProviderModel(provider: StubProvider(events: [.text("hm"), .toolCall(call), .done(finishReason: "tool_calls", usage: nil)]),
                                  model: "tiny")
        let tool = CountingTool()
        let result = try await Agent(model: model, tools: [tool]).run(ask)
        #expect(result.runtime == .remote && result.modelID == "tiny")
        #expect(tool.count == 1)
        #expect(result.outcome == .loopDetected(toolName: "counter"))
        #expect(model.brain == .localEndpoint)
    }

    @Test func aPlainAnswerAndItsUsageComeThrough() async throws {
        let usage = Usage(promptTokens: 3, completionTokens: 2)
        let model = ProviderModel(provider: StubProvider(events: [.text("he"), .text("llo"), .done(finishReason: "stop", usage: usage)]),
                                  model: "m")
        var metrics: [ModelMetrics] = []
        for try await event in await model.stream(messages: ask, tools: [], params: .init()) {
            if case .metrics(let m) = event { metrics.append(m) }
        }
        #expect(metrics == [ModelMetrics(isFinal: true, promptTokens: 3, completionTokens: 2, finishReason: "stop")])
        #expect(try await Agent(model: model, tools: []).run(ask).answer == "hello")
    }

    @Test func aStreamWithoutDoneIsAnInterruptedAnswer() async throws {
        let model = ProviderModel(provider: StubProvider(events: [.text("half")]), model: "m")
        await #expect(throws: AgentError.model(InferenceError.interrupted.description)) {
            try await Agent(model: model, tools: []).run(ask)
        }
    }
}
