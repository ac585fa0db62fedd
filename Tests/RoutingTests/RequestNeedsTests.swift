import Inference
import Routing
import Signing
import Testing
import Wire

/// The tools and images rows of the routing table (#23): a request goes to the chosen brain
/// when it can take what the request carries, else on-device when that brain can, else it is
/// refused with words that say why and what to do. Never to a cloud the user did not choose.
@Suite struct RequestNeedsTests {
    static let tool = ToolDefinition(name: "ls", description: "list", parametersJSON: "{}")
    static let withTools = ChatRequest(model: "caller", messages: [ChatMessage(role: .user, content: "list")], tools: [tool])
    static let withImage = ChatRequest(model: "caller", messages: [
        ChatMessage(role: .user, parts: [.text("what is this?"), .image(ImageData(mediaType: "image/png", bytes: [0x89, 0x50]))])])

    /// Own Homebase advertising `llama3` with `caps`, two minutes ago.
    static func own(_ caps: AppMessage.Capabilities) -> FakeFacts {
        var f = FakeFacts()
        f.settings.settings = RoutingSettings([.modelSource: "external", .ollamaModel: "llama3"])
        f.own.advert = ReceivedAdvert(advert: AppMessage.Advert(hostKey: .repeating(1), sequence: 1, timestampMs: 0,
                                                                models: [model("llama3", caps)]),
                                      receiptMs: f.clock.nowMs() - 2 * minute)
        return f
    }

    static let host = SigningKey.generate().publicKey

    /// A joined Homebase serving `llama3` with `caps`, heard from a minute ago.
    static func joined(_ caps: AppMessage.Capabilities?, toolsGranted: Bool) -> FakeFacts {
        var f = FakeFacts()
        f.settings.settings = RoutingSettings([.modelSource: "external", .ollamaModel: "llama3", .ollamaHost: host.hex])
        f.joined.records[host] = JoinedHomebase(
            hostKey: host, hpkeKey: Array(repeating: 7, count: 32), relayURL: "wss://friend.example", state: .joined,
            models: ["llama3"], lastHeardMs: f.clock.nowMs() - minute,
            capabilities: caps.map { ["llama3": $0] } ?? [:], toolsGranted: toolsGranted)
        return f
    }

    @Test func toolsGoToTheOwnHomebaseWhenItsModelAdvertisesToolUse() {
        let f = Self.own([.completion, .tools])
        let p = f.router().provider(for: Self.withTools)
        #expect(p.brain == .ownHomebase)
        #expect(p.decision.refusal == nil)
        #expect(p.decision.reason.contains("request carries tools and own Homebase model llama3 can take them"), "\(p.decision.reason)")
        #expect(p.model == "llama3")
    }

    @Test func toolsOnAModelWithoutToolUseAnswerOnDeviceAndSaySo() {
        let f = Self.own([.completion])
        let p = f.router().provider(for: Self.withTools)
        #expect(p.brain == .onDevice)
        #expect(p.decision.reason.contains("but own Homebase model llama3 does not advertise tool use: on-device, which can"),
                "\(p.decision.reason)")
    }

    @Test func aToolResultTurnIsATurnWithTools() {
        var request = ChatRequest(model: "caller", messages: [ChatMessage(role: .user, content: "list")])
        request.messages.append(ChatMessage(role: .assistant, content: "", toolCalls: [ToolCall(id: "1", name: "ls", argumentsJSON: "{}")]))
        request.messages.append(ChatMessage(role: .tool, content: "a.txt", toolCallID: "1"))
        #expect(Self.own([.completion, .tools]).router().provider(for: request).brain == .ownHomebase)
        #expect(Self.own([.completion]).router().provider(for: request).brain == .onDevice)
    }

    @Test func aJoinedHomebaseTakesToolsOnlyUnderAGrantThatAllowsThem() {
        let granted = Self.joined([.completion, .tools], toolsGranted: true).router().provider(for: Self.withTools)
        #expect(granted.brain == .joinedHomebase)

        let notGranted = Self.joined([.completion, .tools], toolsGranted: false).router().provider(for: Self.withTools)
        #expect(notGranted.brain == .onDevice)
        #expect(notGranted.decision.reason.contains("does not allow tools (ask its owner to share with --tools)"),
                "\(notGranted.decision.reason)")

        let noBit = Self.joined([.completion], toolsGranted: true).router().provider(for: Self.withTools)
        #expect(noBit.brain == .onDevice)
        #expect(noBit.decision.reason.contains("model llama3 does not advertise tool use"))
        // Capabilities never advertised (only the grant's tags known): unknown counts as no.
        #expect(Self.joined(nil, toolsGranted: true).router().provider(for: Self.withTools).brain == .onDevice)
    }

    @Test func aLocalEndpointTakesWhatItsProbeLearnt() {
        var f = FakeFacts()
        f.settings.settings = RoutingSettings([.modelSource: "external", .ollamaModel: "qwen3"])
        f.endpoint.endpoint = LocalEndpoint(url: "http://127.0.0.1:11434", models: ["qwen3"],
                                            capabilities: ["qwen3": [.completion, .tools]])
        #expect(f.router().provider(for: Self.withTools).brain == .localEndpoint)
        // Its probe said no vision: the image cannot go there, nor on-device.
        let image = f.router().provider(for: Self.withImage)
        #expect(image.decision.refusal != nil)
        #expect(image.decision.reason.contains("model qwen3 on local endpoint http://127.0.0.1:11434 cannot see images"))

        f.endpoint.endpoint = LocalEndpoint(url: "http://127.0.0.1:8000", models: ["qwen3"])  // vLLM: caps unknown
        let unknown = f.router().provider(for: Self.withTools)
        #expect(unknown.brain == .onDevice)
        #expect(unknown.decision.reason.contains("does not support tools (its probe learnt no capabilities)"))
    }

    @Test func aChosenCloudTakesToolsAndImages() {
        var f = FakeFacts()
        f.settings.settings = RoutingSettings([.modelSource: "external", .externalRuntime: "claude"])
        f.keys.present = [.anthropic]
        #expect(f.router().provider(for: Self.withTools).brain == .anthropic)
        #expect(f.router().provider(for: Self.withImage).brain == .anthropic)
    }

    @Test func anImageGoesToAHomebaseModelThatCanSee() {
        let p = Self.own([.completion, .vision]).router().provider(for: Self.withImage)
        #expect(p.brain == .ownHomebase)
        #expect(p.decision.reason.contains("request carries an image and own Homebase model llama3 can take them"))
        #expect(Self.joined([.completion, .vision], toolsGranted: false).router().provider(for: Self.withImage).brain == .joinedHomebase)
    }

    /// No brain can see: refused with plain words, nothing built, never silently dropped.
    @Test func anImageNoBrainCanSeeIsRefusedWithWhatToDo() async {
        var f = Self.own([.completion, .tools])
        f.keys.present = [.openAI]  // on file, but not chosen: never upward to it
        let p = f.router().provider(for: Self.withImage)
        guard case .noBrainCanSee(let detail)? = p.decision.refusal else {
            Issue.record("expected a refusal, got \(p.decision)")
            return
        }
        #expect(detail.contains("own Homebase model llama3 cannot see images (no vision in its advert)"))
        #expect(detail.contains("the on-device built-in model cannot see images"))
        #expect(detail.contains("guest settings set ollama.model TAG"))
        #expect(p.decision.route.brain == .onDevice)
        #expect(p.brain == .floor)
        #expect(f.factory.builds.isEmpty)  // nothing was asked of any brain
        var thrown: (any Error)?
        do { for try await _ in p.stream(Self.withImage) {} } catch { thrown = error }
        #expect(thrown as? RoutingError == p.decision.refusal)
        #expect(RoutingError.noBrainCanSee(detail: "x").description == "no brain that can see the image is available: x")
    }

    /// An image over the relay's limit is refused before anything is sent, with the limit named
    /// (serve answers it 413); within the limit it goes; a chosen cloud is not behind the relay.
    @Test func anImageOverTheRelaysLimitIsRefusedNamingTheLimit() {
        let big = ChatRequest(model: "caller", messages: [ChatMessage(role: .user, parts: [
            .text("what is this?"), .image(ImageData(mediaType: "image/png", bytes: [UInt8](repeating: 1, count: Limits.maxImageBytes + 1)))])])
        let p = Self.own([.completion, .vision]).router().provider(for: big)
        guard case .tooLarge(let detail)? = p.decision.refusal else {
            Issue.record("expected a too-large refusal, got \(p.decision)")
            return
        }
        #expect(detail.contains("over the relay's limit of 10 MiB per image"), "\(detail)")
        #expect(p.brain == .floor)
        let joined = Self.joined([.completion, .vision], toolsGranted: false).router().provider(for: big)
        #expect(joined.decision.refusal.map { if case .tooLarge = $0 { true } else { false } } == true)
        #expect(Self.own([.completion, .vision]).router().provider(for: Self.withImage).decision.refusal == nil)
        var cloud = FakeFacts()
        cloud.settings.settings = RoutingSettings([.modelSource: "external", .externalRuntime: "claude"])
        cloud.keys.present = [.anthropic]
        #expect(cloud.router().provider(for: big).brain == .anthropic)
    }

    @Test func anOnDeviceVisionModelTakesTheImageWhenTheHomebaseCannot() {
        var f = Self.own([.completion])
        f.onDevice = FixedOnDeviceAbilities([.tools, .vision])
        let p = f.router().provider(for: Self.withImage)
        #expect(p.brain == .onDevice)
        #expect(p.decision.reason.contains("cannot see images (no vision in its advert): on-device, which can"))
    }

    @Test func toolsNoBrainCanUseAreRefused() {
        var f = Self.own([.completion])
        f.onDevice = FixedOnDeviceAbilities([])
        guard case .noBrainCanUseTools(let detail)? = f.router().provider(for: Self.withTools).decision.refusal else {
            Issue.record("expected a refusal")
            return
        }
        #expect(detail.contains("own Homebase model llama3 does not advertise tool use; the on-device built-in model cannot use tools"))
    }

    @Test func plainRequestsAreDecidedAsBefore() {
        for f in [Self.own([.completion]), Self.joined(nil, toolsGranted: false), FakeFacts()] {
            let plain = ChatRequest(model: "caller", messages: [ChatMessage(role: .user, content: "hi")])
            #expect(f.router().decide(for: plain) == f.router().resolve())
        }
    }

    @Test func toolsRemoteTakesOnOrOff() throws {
        #expect(try SettingName.toolsRemote.validate(" OFF ") == "off")
        #expect(try SettingName.toolsRemote.validate("on") == "on")
        #expect(routingError { _ = try SettingName.toolsRemote.validate("maybe") }
                == .invalidSettingValue(name: "tools.remote", expected: "one of on, off (default on)"))
        // Unset and a corrupt stored value allow remote tools (the brain's capability decides).
        var f = Self.own([.completion, .tools])
        f.settings.settings[.toolsRemote] = "garbage"
        #expect(f.router().provider(for: Self.withTools).brain == .ownHomebase)
    }
}
