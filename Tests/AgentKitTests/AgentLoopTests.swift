import Foundation
import AgentKit
import Inference
import Testing

@Suite struct AgentLoopTests {
    private let ask = [ChatMessage(role: .user, content: "go")]

    @Test(arguments: allDialects)
    func twentyCallsInARowComplete(_ dialect: ToolFamily?) async throws {
        let script = (1...20).map { FakeModel.Step.toolCall("counter", #"{"n": \#($0)}"#) } + [.answer("all done")]
        let fake = FakeModel(script: script, dialect: dialect)
        let tool = CountingTool()
        let result = try await Agent(model: fake, tools: [tool]).run(ask)
        #expect(result.outcome == .answered)
        #expect(result.answer == "all done")
        #expect(result.iterations == 21)
        #expect(tool.count == 20)
        // Text dialects canonicalise arguments; native calls pass them through as written.
        let arguments = result.toolResults.map { $0.call.argumentsJSON.replacingOccurrences(of: " ", with: "") }
        #expect(arguments == (1...20).map { #"{"n":\#($0)}"# })
        #expect(result.runtime == .fake && result.modelID == "fake (scripted)")
        // Every tool message answers the call id of the assistant message before it.
        let ids = result.transcript.flatMap(\.toolCalls).map(\.id)
        #expect(Set(ids).count == 20)
        #expect(result.transcript.filter { $0.role == .tool }.compactMap(\.toolCallID) == ids)
    }

    @Test(arguments: allDialects)
    func aRepeatedCallIsToldOnceThenTheRunStops(_ dialect: ToolFamily?) async throws {
        let repeatCall = FakeModel.Step.toolCall("counter", #"{"q": "same"}"#)
        let fake = FakeModel(script: Array(repeating: repeatCall, count: 5) + [.answer("never")], dialect: dialect)
        let tool = CountingTool()
        let result = try await Agent(model: fake, tools: [tool]).run(ask)
        #expect(result.outcome == .loopDetected(toolName: "counter"))
        #expect(tool.count == 1)
        #expect(result.iterations == 3)
        let prompts = await fake.prompts
        #expect(prompts.count == 3)
        #expect(toolMessages(prompts[2]).filter { $0 == Agent.loopWarning }.count == 1)
        #expect(result.summary.contains("kept repeating the call counter"))
    }

    @Test func aModelThatObeysTheWarningGetsToAnswer() async throws {
        let step = FakeModel.Step.toolCall("counter", "{}")
        let fake = FakeModel(script: [step, step, .answer("fine")])
        let result = try await Agent(model: fake, tools: [CountingTool()]).run(ask)
        #expect(result.outcome == .answered)
        #expect(result.answer == "fine")
        #expect(toolMessages(result.transcript) == ["call 1 with {}", Agent.loopWarning])
    }

    @Test func aTwoCallCycleIsToldOnceThenTheRunStops() async throws {
        let a = FakeModel.Step.toolCall("counter", #"{"n": 1, "m": 2}"#)
        let b = FakeModel.Step.toolCall("counter", #"{"n": 2}"#)
        let aReordered = FakeModel.Step.toolCall("counter", #"{"m":2,"n":1}"#)
        let fake = FakeModel(script: [a, b, aReordered, b, a, .answer("never")])
        let tool = CountingTool()
        let result = try await Agent(model: fake, tools: [tool]).run(ask)
        #expect(result.outcome == .loopDetected(toolName: "counter"))
        #expect(tool.count == 3)  // A, B, A run; the second B is refused; the third A stops
        #expect(toolMessages(result.transcript).filter { $0 == Agent.loopWarning }.count == 1)
        #expect(result.iterations == 5)
    }

    @Test func malformedJSONInACallTagBecomesAToolErrorTheModelSees() async throws {
        let broken = #"<tool_call>{"name": "current_time", "arguments": {"timezone": }}</tool_call>"#
        let fake = FakeModel(script: [.raw(broken), .echoLastToolResult(prefix: "I saw: ", suffix: "")])
        let result = try await Agent(model: fake, tools: [CurrentTimeTool()]).run(ask)
        #expect(result.outcome == .answered)
        #expect(result.toolResults.count == 1)
        #expect(result.toolResults[0].isError)
        #expect(result.toolResults[0].call.name == "current_time")
        #expect(result.answer.hasPrefix("I saw: error: the tool call could not be parsed: the call is not valid JSON"))
    }

    @Test func anUnknownToolIsAToolError() async throws {
        let fake = FakeModel(script: [.toolCall("rm_rf", "{}"), .echoLastToolResult(prefix: "", suffix: "")])
        let result = try await Agent(model: fake, tools: [CurrentTimeTool()]).run(ask)
        #expect(result.answer == "error: unknown tool rm_rf; available tools: current_time")
    }

    @Test func textAroundCallsIsKeptInTheAssistantMessage() async throws {
        let fake = FakeModel(script: [.raw("Checking. <tool_call>{\"name\": \"counter\"}</tool_call>"), .answer("ok")])
        let result = try await Agent(model: fake, tools: [CountingTool()]).run(ask)
        let assistant = result.transcript.filter { $0.role == .assistant }
        #expect(assistant.map(\.content) == ["Checking.", "ok"])
        #expect(assistant[0].toolCalls.map(\.name) == ["counter"])
    }

    @Test func aSystemPromptIsPrepended() async throws {
        let fake = FakeModel(script: [.answer("hi")])
        let config = AgentConfig(systemPrompt: "be brief")
        _ = try await Agent(model: fake, tools: [], config: config).run(ask)
        #expect(await fake.prompts.first?.map(\.role) == [.system, .user])
    }

    @Test func anUnloadedModelIsRefused() async throws {
        let fake = FakeModel(script: [])
        await fake.unload()
        await #expect(throws: AgentError.notLoaded) { try await Agent(model: fake, tools: []).run(ask) }
    }
}
