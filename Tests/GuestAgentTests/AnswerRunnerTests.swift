import Foundation
@testable import GuestAgent
import Inference
import Routing
import Testing

@Suite struct AnswerRunnerTests {
    let request = ChatRequest(model: "gpt-test", messages: [ChatMessage(role: .user, content: "hello")], maxTokens: 12)

    @Test func failureBeforeOutputAnswersOnDevice() async throws {
        let primary = RecordingProvider(brain: .openAI, error: .unreachable("connection refused"))
        let local = RecordingProvider(brain: .onDevice, events: [.text("local "), .text("answer"), .done(finishReason: "stop", usage: nil)])
        let answer = try await openAIRunner(primary: primary, onDevice: local).run(request)
        #expect(answer.text == "local answer")
        #expect(answer.metadata.brain == .onDevice)
        #expect(answer.metadata.tried == [.init(brain: .openAI, why: "runtime unreachable: connection refused")])
        #expect(answer.metadata.seamOffset == nil)
        #expect(primary.requests.count == 1)
        #expect(local.requests.first?.continuation == nil)
    }

    @Test(arguments: [InferenceError.timeout("no first output"), .http(status: 503, message: "busy"), .inBand("overloaded"),
                      .interrupted, .modelUnavailable("x"), .remote(code: "busy", message: "later")])
    func everyOrdinaryFailureFallsBack(_ error: InferenceError) async throws {
        let primary = RecordingProvider(brain: .openAI, error: error)
        let local = RecordingProvider(brain: .onDevice, events: [.text("ok"), .done(finishReason: "stop", usage: nil)])
        let answer = try await openAIRunner(primary: primary, onDevice: local).run(request)
        #expect(answer.metadata.brain == .onDevice)
        #expect(answer.metadata.tried.first?.why == error.description)
    }

    @Test func streamEndingWithoutDoneIsInterruptedAndFallsBack() async throws {
        let primary = RecordingProvider(brain: .openAI, events: [.text("par")])
        let local = RecordingProvider(brain: .onDevice, events: [.text("tial"), .done(finishReason: "stop", usage: nil)])
        let answer = try await openAIRunner(primary: primary, onDevice: local).run(request)
        #expect(answer.text == "partial")
        #expect(answer.metadata.tried.first?.why == InferenceError.interrupted.description)
    }

    @Test func failureAfterPartialOutputContinuesOnTheRealEngine() async throws {
        let tiny = try Engine.tiny()
        try await withSupervisor { sup in
            let partial = "The answer begins here"
            let primary = RecordingProvider(brain: .openAI, events: [.text("The answer "), .text("begins here")],
                                            error: .timeout("30 s silence mid-stream"))
            let local = RecordingProvider(brain: .onDevice, wrapping: OnDeviceProvider(supervisor: sup, model: tiny))
            let shown = Texts()
            let answer = try await openAIRunner(primary: primary, onDevice: local).run(request) { shown.append($0) }
            // What the fallback received: the same conversation, continuing the partial text.
            let sent = try #require(local.requests.first)
            #expect(sent.continuation == partial)
            #expect(sent.messages == request.messages)
            #expect(answer.text.hasPrefix(partial))
            #expect(answer.text.count > partial.count)
            #expect(shown.joined == answer.text)
            #expect(answer.metadata.brain == .onDevice)
            #expect(answer.metadata.seamOffset == partial.utf8.count)
            #expect(answer.metadata.tried.map(\.brain) == [.openAI])
            #expect(answer.metadata.timeToFirstTokenMs != nil)
        }
    }

    /// #23 (minimal, wire23): tools no longer pin a request on-device; the chosen brain gets it
    /// with its tools (route23 puts the tools decision in the router).
    @Test func requestsWithToolsGoToTheChosenBrain() async throws {
        let primary = RecordingProvider(brain: .openAI, events: [.text("cloud"), .done(finishReason: "stop", usage: nil)])
        let local = RecordingProvider(brain: .onDevice, events: [.text("local"), .done(finishReason: "stop", usage: nil)])
        var withTools = request
        withTools.tools = [ToolDefinition(name: "current_time", description: "now", parametersJSON: "{}")]
        let answer = try await openAIRunner(primary: primary, onDevice: local).run(withTools)
        #expect(primary.requests.map(\.tools) == [withTools.tools])
        #expect(local.requests.isEmpty)
        #expect(answer.text == "cloud" && answer.metadata.brain == .openAI)
    }

    @Test func onDeviceFailureEndsOnTheFloorNotice() async throws {
        let primary = RecordingProvider(brain: .openAI, error: .unreachable("refused"))
        let local = RecordingProvider(brain: .onDevice, events: [.text("half")], error: .interrupted)
        let answer = try await openAIRunner(primary: primary, onDevice: local).run(request)
        #expect(answer.metadata.brain == .floor)
        #expect(answer.metadata.tried.map(\.brain) == [.openAI, .onDevice])
        #expect(answer.text.hasPrefix("half[No brain was reachable"))
        #expect(answer.metadata.tokensPerSecond == nil)
    }

    @Test func noModelInstalledGivesTheLabelledFloorWithoutError() async throws {
        let factory = GuestProviderFactory(supervisor: Engine.supervisor(),
                                           resolver: LocalModelResolver(configuredPath: nil, store: nil),
                                           cloud: CloudDoors(keysDirectory: try tempDirectory()))
        let brain = factory.onDevice(model: .builtIn)
        #expect(brain.brain == .floor)
        let r = await collect(brain.stream(request))
        #expect(r.error == nil)
        #expect(r.done)
        #expect(r.text.hasPrefix("[No brain was reachable: no local model is installed."))
        #expect(r.text.contains("guest models pull"))
        // Through the runner: the floor is the answer, labelled in the metadata.
        let router = Router(settings: StaticSettings(values: [:]), keys: StaticKeys(present: []), localEndpoint: NoFacts(),
                            ownAdverts: NoFacts(), joined: NoFacts(), role: FixedHostRole(hostKey: nil),
                            clock: SystemWallClock(), factory: factory)
        let answer = try await AnswerRunner(router: router, onDevice: { factory.onDevice(model: $0) }).run(request)
        #expect(answer.metadata.brain == .floor)
        #expect(answer.metadata.summaryLine.contains("floor"))
        #expect(answer.metadata.tried.isEmpty)
    }

    @Test func fallbackIsLogged() async throws {
        let lines = Texts()
        let primary = RecordingProvider(brain: .openAI, error: .http(status: 500, message: "oops"))
        let local = RecordingProvider(brain: .onDevice, events: [.done(finishReason: "stop", usage: nil)])
        let factory = ScriptedFactory(onDeviceBrain: local, cloudBrain: primary)
        let router = Router(settings: StaticSettings(values: [.modelSource: "external", .externalRuntime: "openai"]),
                            keys: StaticKeys(present: ["OpenAI"]), localEndpoint: NoFacts(), ownAdverts: NoFacts(),
                            joined: NoFacts(), role: FixedHostRole(hostKey: nil), clock: SystemWallClock(), factory: factory)
        _ = try await AnswerRunner(router: router, onDevice: { factory.onDevice(model: $0) }, log: { lines.append($0) })
            .run(request)
        #expect(lines.joined.contains("fallback: openai failed (HTTP 500: oops)"))
        #expect(!lines.joined.contains("hello"), "a prompt must never reach the log")
    }
}
