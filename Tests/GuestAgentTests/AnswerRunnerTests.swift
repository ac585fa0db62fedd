import Foundation
@testable import GuestAgent
import Inference
import Routing
import Testing
import Synchronization

@Suite struct AnswerRunnerTests {
    let request = ChatRequest(model: "gpt-test", messages: [ChatMessage(role: .user, content: "hello")], maxTokens: 12)

    @Test func failureBeforeOutputAnswersOnDevice() async throws {
        let primary = RecordingProvider(brain: .openAI, error: .unreachable("connection refused"))
        let local = RecordingProvider(brain: .onDevice, events: [.text("local "), .text("answer"), .done(finishReason: "stop", usage: nil)])
        let answer = try await openAIRunner(primary: primary, onDevice: local).run(request)
        #expect(answer.text == "local answer")
        #expect(answer.metadata.brain == .onDevice)
        #expect(answer.metadata.tried.map(\.brain) == [.openAI])
        #expect(answer.metadata.tried.map(\.failure) == [.brain(.unreachable("connection refused"))])
        #expect(answer.metadata.tried.first?.failedAtMs != nil, "when it failed is kept (the page's timeline)")
        #expect(answer.metadata.seamOffset == nil)
        #expect(primary.requests.count == 1)
        #expect(local.requests.first?.continuation == nil)
    }

    /// Every rung is kept, in order, with when it failed: the cloud, then the device, then the floor answered.
    @Test func everyRungIsKeptWithWhenItFailed() async throws {
        let primary = RecordingProvider(brain: .openAI, error: .http(status: 401, message: "bad key"))
        let local = RecordingProvider(brain: .onDevice, error: .unreachable("engine gone"))
        let answer = try await openAIRunner(primary: primary, onDevice: local).run(request)
        let tried = answer.metadata.tried
        #expect(answer.metadata.brain == .floor)
        #expect(tried.map(\.brain) == [.openAI, .onDevice], "\(tried)")
        #expect(tried.map(\.failure) == [.brain(.http(status: 401, message: "bad key")), .brain(.unreachable("engine gone"))])
        let times = tried.compactMap(\.failedAtMs)
        #expect(times.count == 2 && times[0] >= 0 && times[1] >= times[0], "\(times)")
    }

    @Test(arguments: [InferenceError.timeout("no first output"), .http(status: 503, message: "busy"), .inBand("overloaded"),
                      .interrupted, .modelUnavailable("x"), .unsupported("logit_bias")])
    func everyOrdinaryFailureFallsBack(_ error: InferenceError) async throws {
        let primary = RecordingProvider(brain: .openAI, error: error)
        let local = RecordingProvider(brain: .onDevice, events: [.text("ok"), .done(finishReason: "stop", usage: nil)])
        let answer = try await openAIRunner(primary: primary, onDevice: local).run(request)
        #expect(answer.metadata.brain == .onDevice)
        #expect(answer.metadata.tried.first?.failure == (error == .interrupted ? .interrupted : .brain(error)))
    }

    @Test func streamEndingWithoutDoneIsInterruptedAndFallsBack() async throws {
        let primary = RecordingProvider(brain: .openAI, events: [.text("par")])
        let local = RecordingProvider(brain: .onDevice, events: [.text("tial"), .done(finishReason: "stop", usage: nil)])
        let answer = try await openAIRunner(primary: primary, onDevice: local).run(request)
        #expect(answer.text == "partial")
        #expect(answer.metadata.tried.first?.failure == .interrupted)
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

    /// The model's turns travel (#23): a request with tools goes to the chosen brain that can
    /// use them; `tools.remote = off` restores the old rule (on-device directly).
    @Test func requestsWithToolsGoToTheChosenBrainUnlessToolsRemoteIsOff() async throws {
        let primary = RecordingProvider(brain: .openAI, events: [.text("cloud"), .done(finishReason: "stop", usage: nil)])
        let local = RecordingProvider(brain: .onDevice, events: [.text("local"), .done(finishReason: "stop", usage: nil)])
        var withTools = request
        withTools.tools = [ToolDefinition(name: "current_time", description: "now", parametersJSON: "{}")]
        let answer = try await openAIRunner(primary: primary, onDevice: local).run(withTools)
        #expect(primary.requests.map(\.tools) == [withTools.tools])
        #expect(local.requests.isEmpty)
        #expect(answer.text == "cloud")
        #expect(answer.metadata.routeReason.contains("request carries tools and the chosen cloud takes them"))

        let off = try await openAIRunner(primary: primary, onDevice: local,
                                         settings: [.modelSource: "external", .externalRuntime: "openai", .toolsRemote: "off"])
            .run(withTools)
        #expect(primary.requests.count == 1)
        #expect(local.requests.map(\.tools) == [withTools.tools])
        #expect(off.metadata.brain == .onDevice)
        #expect(off.metadata.tried.isEmpty)
        #expect(off.metadata.routeReason.contains("tools.remote is off"))
    }

    /// Fallback on-device keeps the same request: the tools go with it.
    @Test func aFailedToolTurnFallsBackWithTheSameTools() async throws {
        let primary = RecordingProvider(brain: .openAI, error: .unreachable("refused"))
        let local = RecordingProvider(brain: .onDevice, events: [.toolCall(ToolCall(id: "c", name: "current_time", argumentsJSON: "{}")),
                                                                 .done(finishReason: "tool_calls", usage: nil)])
        var withTools = request
        withTools.tools = [ToolDefinition(name: "current_time", description: "now", parametersJSON: "{}")]
        let calls = CallBox()
        _ = try await openAIRunner(primary: primary, onDevice: local).run(withTools, onToolCall: { calls.add($0) })
        #expect(primary.requests.count == 1)
        #expect(local.requests == [withTools])
        #expect(calls.all.map(\.name) == ["current_time"])
    }

    /// An image no brain can see: the runner throws the router's refusal and asks nothing of anyone.
    @Test func anImageNoBrainCanSeeIsRefusedBeforeAnyBrainIsAsked() async throws {
        let primary = RecordingProvider(brain: .openAI, events: [.text("cloud"), .done(finishReason: "stop", usage: nil)])
        let local = RecordingProvider(brain: .onDevice, events: [.text("local"), .done(finishReason: "stop", usage: nil)])
        var withImage = request
        withImage.messages[0].parts.append(.image(ImageData(mediaType: "image/png", bytes: [1, 2, 3])))
        // The user chose on-device (the OpenAI key on file is not chosen: never upward to it).
        let runner = openAIRunner(primary: primary, onDevice: local, settings: [.modelSource: "on-device"])
        await #expect(throws: RoutingError.self) { try await runner.run(withImage) }
        do { _ = try await runner.run(withImage) } catch let e as RoutingError {
            guard case .noBrainCanSee(let detail) = e else { Issue.record("\(e)"); return }
            #expect(detail.contains("the on-device built-in model cannot see images"))
        }
        #expect(primary.requests.isEmpty)
        #expect(local.requests.isEmpty)
    }

    /// The chosen cloud could see the image but failed: the on-device brain cannot, so the floor
    /// notice says why instead of an answer that pretends to have seen it.
    @Test func anImageIsNeverFallenBackToABrainThatCannotSeeIt() async throws {
        let primary = RecordingProvider(brain: .openAI, error: .unreachable("refused"))
        let local = RecordingProvider(brain: .onDevice, events: [.text("local"), .done(finishReason: "stop", usage: nil)])
        var withImage = request
        withImage.messages[0].parts.append(.image(ImageData(mediaType: "image/png", bytes: [1, 2, 3])))
        let answer = try await openAIRunner(primary: primary, onDevice: local).run(withImage)
        #expect(primary.requests.count == 1)
        #expect(local.requests.isEmpty)
        #expect(answer.metadata.brain == .floor)
        #expect(answer.text.contains("cannot see images"))
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
        let factory = GuestBrains(supervisor: Engine.supervisor(),
                                  resolver: LocalModelResolver(configuredPath: nil, store: nil),
                                  cloud: CloudDoors(keysDirectory: try temporaryDirectory("guest-tests")))
        let brain = factory.brain(for: .onDevice(.builtIn))
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
        let answer = try await AnswerRunner(router: router).run(request)
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
        _ = try await AnswerRunner(router: router, log: { lines.append($0) })
            .run(request)
        #expect(lines.joined.contains("fallback: openai failed (HTTP 500: oops)"))
        #expect(!lines.joined.contains("hello"), "a prompt must never reach the log")
    }
}

/// `guest serve` writes reasoning and logprobs as they come; tool calls only whole, once the
/// brain that made them has finished (#23: a failover never leaves a half-written call).
@Suite struct AnswerRunnerEventTests {
    final class Events: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [ChatEvent] = []
        func append(_ e: ChatEvent) { lock.withLock { list.append(e) } }
        var all: [ChatEvent] { lock.withLock { list } }
    }

    static let request = ChatRequest(model: "gpt-test", messages: [ChatMessage(role: .user, content: "hello")],
                                     tools: [ToolDefinition(name: "f", description: "", parametersJSON: "{}")])

    @Test func reasoningAndLogprobsReachTheCallerAndCallsComeWhole() async throws {
        let lp = TokenLogprob(token: "Hi", logprob: -0.5, bytes: [72, 105], top: [.init(token: "Ho", logprob: -1)])
        let events: [ChatEvent] = [.reasoning("hm"), .text("Hi"), .logprobs([lp]),
                                   .toolCallDelta(ToolCallDelta(index: 0, id: "c", name: "f")),
                                   .toolCallDelta(ToolCallDelta(index: 0, arguments: "{}")),
                                   .toolCall(ToolCall(id: "c", name: "f", argumentsJSON: "{}")),
                                   .done(finishReason: "tool_calls", usage: nil)]
        let primary = RecordingProvider(brain: .openAI, events: events)
        let local = RecordingProvider(brain: .onDevice, events: [.done(finishReason: "stop", usage: nil)])
        let seen = Events(), calls = Events()
        let answer = try await openAIRunner(primary: primary, onDevice: local)
            .run(Self.request, onToolCall: { calls.append(.toolCall($0)) }, onEvent: { seen.append($0) })
        #expect(seen.all == [.reasoning("hm"), .logprobs([lp])], "deltas are not passed on")
        #expect(calls.all == [events[5]])
        #expect(answer.metadata.finishReason == "tool_calls")
    }

    /// TEST FAKES, labelled: the chosen brain (a scripted "openai") streams half a call and fails;
    /// the on-device fake answers with a whole call. The caller sees the fallback's call alone.
    @Test func aHalfStreamedCallOfAFailedBrainIsNeverHandedOn() async throws {
        let half: [ChatEvent] = [.toolCallDelta(ToolCallDelta(index: 0, id: "dead_1", name: "f", arguments: #"{"a":"#))]
        let primary = RecordingProvider(brain: .openAI, events: half, error: .interrupted)
        let whole = ToolCall(id: "local_1", name: "f", argumentsJSON: #"{"a":2}"#)
        let local = RecordingProvider(brain: .onDevice, events: [.toolCallDelta(ToolCallDelta(index: 0, id: "local_1", name: "f")),
                                                                 .toolCall(whole), .done(finishReason: "tool_calls", usage: nil)])
        let seen = Events(), calls = Events()
        let answer = try await openAIRunner(primary: primary, onDevice: local)
            .run(Self.request, onToolCall: { calls.append(.toolCall($0)) }, onEvent: { seen.append($0) })
        #expect(answer.metadata.brain == .onDevice)
        #expect(calls.all == [.toolCall(whole)])
        #expect(seen.all.isEmpty)
    }

    /// A whole call of a brain that then fails (before `.done`) is discarded too.
    @Test func aWholeCallOfABrainThatFailsBeforeItsEndIsDiscarded() async throws {
        let primary = RecordingProvider(brain: .openAI, events: [.toolCall(ToolCall(id: "dead_1", name: "f", argumentsJSON: "{}"))],
                                        error: .interrupted)
        let whole = ToolCall(id: "local_1", name: "f", argumentsJSON: "{}")
        let local = RecordingProvider(brain: .onDevice, events: [.toolCall(whole), .done(finishReason: "tool_calls", usage: nil)])
        let calls = Events()
        _ = try await openAIRunner(primary: primary, onDevice: local).run(Self.request, onToolCall: { calls.append(.toolCall($0)) })
        #expect(calls.all == [.toolCall(whole)])
    }
}

/// Tool calls the runner handed on, in order.
final class CallBox: Sendable {
    private let calls = Mutex<[ToolCall]>([])
    func add(_ call: ToolCall) { calls.withLock { $0.append(call) } }
    var all: [ToolCall] { calls.withLock { $0 } }
}
