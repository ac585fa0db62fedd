import AgentKit
import Foundation
@testable import GuestAgent
import Inference
import Routing
import Synchronization
import Testing

/// `guest chat --tools` with its model turns on the routed brain (#23): the chosen brain
/// (here a scripted one labelled as such, behind the real router and runner) decides the call,
/// the tool runs here, and the next turn carries its result back to the same brain.
@Suite struct RoutedAgentModelTests {
    /// A scripted brain: first turn calls `current_time`, later turns answer in text.
    final class ToolThenAnswer: ChatProvider, Sendable {
        let brain: BrainKind
        private let seen = Mutex<[ChatRequest]>([])
        var requests: [ChatRequest] { seen.withLock { $0 } }
        init(brain: BrainKind) { self.brain = brain }

        func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error> {
            let turn = seen.withLock { $0.append(request); return $0.count }
            return AsyncThrowingStream { out in
                if turn == 1 {
                    out.yield(.toolCall(ToolCall(id: "call_1", name: "current_time", argumentsJSON: #"{"timezone":"UTC"}"#)))
                    out.yield(.done(finishReason: "tool_calls", usage: nil))
                } else {
                    out.yield(.text("It is noon."))
                    out.yield(.done(finishReason: "stop", usage: Usage(promptTokens: 9, completionTokens: 4)))
                }
                out.finish()
            }
        }
    }

    @Test func theModelTurnsTravelAndTheToolRunsHere() async throws {
        let remote = ToolThenAnswer(brain: .openAI)
        let local = RecordingProvider(brain: .onDevice, events: [.text("local"), .done(finishReason: "stop", usage: nil)])
        let model = RoutedAgentModel(runner: openAIRunner(primary: remote, onDevice: local), model: "default")
        let shown = Mutex("")
        let result = try await AgentChat.run(prompt: "what time is it?", model: model, allowedDirectories: [],
                                             output: { text in shown.withLock { $0 += text } })
        #expect(result.answer == "It is noon.")
        #expect(local.requests.isEmpty)
        #expect(remote.requests.count == 2)
        // Both turns offered the built-in tools; the second carried the call and this device's result.
        #expect(remote.requests.allSatisfy { $0.tools.map(\.name).contains("current_time") })
        let second = try #require(remote.requests.last)
        #expect(second.messages.contains { $0.toolCalls.map(\.id) == ["call_1"] })
        let result0 = try #require(second.messages.last { $0.role == .tool })
        #expect(result0.toolCallID == "call_1")
        #expect(result0.content.contains("UTC"), "\(result0.content)")  // CurrentTimeTool ran here
        #expect(model.lastTurn?.brain == .openAI)
        #expect(shown.withLock { $0 }.contains("[tool current_time"))
    }

    /// `tools.remote = off`: the same loop's turns answer on-device.
    @Test func toolsRemoteOffKeepsTheTurnsOnDevice() async throws {
        let remote = ToolThenAnswer(brain: .openAI)
        let local = ToolThenAnswer(brain: .onDevice)
        let runner = openAIRunner(primary: remote, onDevice: local,
                                  settings: [.modelSource: "external", .externalRuntime: "openai", .toolsRemote: "off"])
        _ = try await AgentChat.run(prompt: "time?", model: RoutedAgentModel(runner: runner, model: "default"),
                                    allowedDirectories: [], output: { _ in })
        #expect(remote.requests.isEmpty)
        #expect(local.requests.count == 2)
    }
}
