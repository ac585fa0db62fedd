import Inference
import Routing
import Signing
import TestKit
import Testing
import Synchronization
import Wire

@Suite struct RouterBehaviourTests {
    /// A guest whose own Homebase advertised `llama3` two minutes ago.
    static func ownFacts(age: Int64 = 2 * minute) -> FakeFacts {
        var f = FakeFacts()
        f.settings.settings = RoutingSettings([.modelSource: "external", .ollamaModel: "llama3"])
        f.own.advert = ReceivedAdvert(advert: AppMessage.Advert(hostKey: .repeating(1), sequence: 1, timestampMs: 0,
                                                                models: [model("llama3")]),
                                      receiptMs: f.clock.nowMs() - age)
        return f
    }

    @Test func settingsAreReReadAtEveryCall() throws {
        let dir = try TempDir("homebase-routing")
        defer { dir.cleanup() }
        let store = SettingsStore(database: try RoutingSchema.open(path: dir.path("routing.db")))
        var f = Self.ownFacts()
        f.keys.present = [.anthropic]
        let router = Router(settings: store, keys: f.keys, localEndpoint: f.endpoint, ownAdverts: f.own, joined: f.joined,
                            role: FixedHostRole(hostKey: nil), clock: f.clock, factory: f.factory)
        #expect(router.resolve().route.brain == .onDevice)  // nothing set, no OpenAI key
        try store.set(.modelSource, "external")
        try store.set(.ollamaModel, "llama3")
        #expect(router.resolve().route.brain == .ownHomebase)
        try store.set(.externalRuntime, "claude")
        #expect(router.resolve().route.brain == .anthropic)
        #expect(router.provider().brain == .anthropic)
        try store.set(.modelSource, "on-device")
        #expect(router.resolve().route.brain == .onDevice)
        #expect(router.provider().brain == .onDevice)
    }

    @Test func theContractsExampleReason() {
        let decision = Self.ownFacts(age: 14 * minute + 5_000).router().resolve()
        #expect(decision.route.brain == .onDevice)
        #expect(decision.reason == "no verified local endpoint; own Homebase advert is 14 min old (limit 10 min): on-device")
    }

    @Test func aCorruptHostValueDegradesToOwn() {
        for corrupt in ["", "zz", String(repeating: "f", count: 62), String(repeating: "f", count: 66), "own-ish"] {
            var f = Self.ownFacts()
            f.settings.settings[.ollamaHost] = corrupt
            let decision = f.router().resolve()
            #expect(decision.route.brain == .ownHomebase, "host value \(corrupt.debugDescription)")
            #expect(decision.reason.hasPrefix("Ollama host value is not a host key, using own; "))
        }
    }

    @Test func unreadableFactsRouteOnDeviceNeverAnError() {
        var f = Self.ownFacts()
        f.settings.fails = true
        #expect(f.router().resolve() == RouteDecision.onDeviceForTest("settings could not be read: on-device"))

        f = Self.ownFacts()
        f.own.fails = true
        #expect(f.router().resolve().route.brain == .onDevice)

        f = Self.ownFacts()
        f.endpoint.fails = true  // an unreadable endpoint is skipped: the own Homebase still serves
        #expect(f.router().resolve().route.brain == .ownHomebase)

        f = Self.ownFacts()
        f.settings.settings = RoutingSettings([.modelSource: "external", .externalRuntime: "openai"])
        f.keys.present = [.openAI]
        #expect(f.router().resolve().route.brain == .openAI)
        f.keys.fails = true
        #expect(f.router().resolve().route.brain == .onDevice)

        f = Self.ownFacts()
        let host = SigningKey.generate().publicKey
        f.settings.settings[.ollamaHost] = host.hex
        f.joined.fails = true
        #expect(f.router().resolve().route.brain == .onDevice)
    }

    /// With `tools.remote = off` (the old rule), requests with tools go on-device, whatever
    /// the chosen brain could do; the reason says so. (The rest of the tools table:
    /// RequestNeedsTests.)
    @Test func toolsRemoteOffSendsRequestsWithToolsOnDevice() {
        var f = Self.ownFacts()
        f.own.advert!.advert.models = [model("llama3", [.completion, .tools])]
        f.settings.settings[.localModel] = "qwen-local"
        f.settings.settings[.toolsRemote] = "off"
        let plain = ChatRequest(model: "any", messages: [ChatMessage(role: .user, content: "hi")])
        #expect(f.router().provider(for: plain).brain == .ownHomebase)

        var withTools = plain
        withTools.tools = [ToolDefinition(name: "ls", description: "list", parametersJSON: "{}")]
        var toolResult = plain
        toolResult.messages.append(ChatMessage(role: .assistant, content: "",
                                               toolCalls: [ToolCall(id: "1", name: "ls", argumentsJSON: "{}")]))
        for request in [withTools, toolResult] {
            let provider = f.router().provider(for: request)
            #expect(provider.brain == .onDevice)
            #expect(provider.decision.localModel == .community("qwen-local"))
            #expect(provider.decision.reason.contains("tools.remote is off: requests with tools answer on-device"))
        }
        // Also when a cloud is chosen.
        f.settings.settings = RoutingSettings([.modelSource: "external", .externalRuntime: "openai", .toolsRemote: "off"])
        f.keys.present = [.openAI]
        #expect(f.router().provider(for: plain).brain == .openAI)
        #expect(f.router().provider(for: withTools).brain == .onDevice)
    }

    @Test func theRoutedProviderNamesTheRoutedModel() async throws {
        let spy = SpyFactory()
        var f = Self.ownFacts()
        f.endpoint.endpoint = LocalEndpoint(url: "http://localhost:8080/v1", models: ["llama3"])
        let router = Router(settings: f.settings, keys: f.keys, localEndpoint: f.endpoint, ownAdverts: f.own,
                            joined: f.joined, role: FixedHostRole(hostKey: nil), clock: f.clock, factory: spy)
        let provider = router.provider(model: "caller-model")
        #expect(provider.decision.route.target == "local endpoint " + "http://localhost:8080/v1")
        for try await _ in provider.stream(ChatRequest(model: "caller-model", messages: [])) {}
        #expect(spy.models == ["llama3"])  // the selection's tag, not the caller's name

        f.settings.settings = RoutingSettings([.modelSource: "external", .externalRuntime: "claude", .claudeModel: "claude-test"])
        f.keys.present = [.anthropic]
        let cloud = Router(settings: f.settings, keys: f.keys, localEndpoint: f.endpoint, ownAdverts: f.own,
                           joined: f.joined, role: FixedHostRole(hostKey: nil), clock: f.clock, factory: spy)
        for try await _ in cloud.provider(model: "caller-model").stream(ChatRequest(model: "x", messages: [])) {}
        #expect(spy.models == ["llama3", "claude-test"])
        f.settings.settings[.claudeModel] = nil
        let unpinned = Router(settings: f.settings, keys: f.keys, localEndpoint: f.endpoint, ownAdverts: f.own,
                              joined: f.joined, role: FixedHostRole(hostKey: nil), clock: f.clock, factory: spy)
        for try await _ in unpinned.provider(model: "caller-model").stream(ChatRequest(model: "x", messages: [])) {}
        #expect(spy.models == ["llama3", "claude-test", "caller-model"])
    }

    @Test func aKeyGoneBetweenResolveAndBuildFallsOnDevice() {
        var f = Self.ownFacts()
        f.settings.settings = RoutingSettings([.modelSource: "openai"])  // legacy radio value
        f.keys = FakeKeys(present: [.openAI])
        #expect(f.router().provider().brain == .openAI)
        let vanishing = VanishingKeys()
        let router = Router(settings: f.settings, keys: vanishing, localEndpoint: f.endpoint, ownAdverts: f.own,
                            joined: f.joined, role: FixedHostRole(hostKey: nil), clock: f.clock, factory: f.factory)
        let provider = router.provider()
        #expect(provider.brain == .onDevice)
        #expect(provider.decision.reason.hasSuffix("OpenAI key could not be read: on-device"))
    }

    @Test func onlyLoopbackEndpointsCount() {
        var f = Self.ownFacts()
        f.own.advert = nil
        f.endpoint.endpoint = LocalEndpoint(url: "http://192.168.1.20:11434", models: ["llama3"])
        #expect(f.router().resolve().route.brain == .onDevice)
        #expect(f.router().resolve().reason.contains("local endpoint is not on loopback"))
        f.endpoint.endpoint = LocalEndpoint(url: "http://[::1]:11434", models: ["llama3"])
        #expect(f.router().resolve().route.target == "local endpoint " + "http://[::1]:11434")
    }

    @Test func theHomebaseNeverRoutesToItself() {
        var f = Self.ownFacts()
        f.homebaseKey = SigningKey.generate().publicKey
        #expect(f.router().resolve().route.brain == .onDevice)
        // Nor to a "joined" record carrying its own key.
        f.settings.settings[.ollamaHost] = f.homebaseKey!.hex
        f.joined.records[f.homebaseKey!] = JoinedHomebase(hostKey: f.homebaseKey!, hpkeKey: [UInt8](repeating: 0, count: 32),
                                                          relayURL: "wss://r", state: .joined, models: ["llama3"],
                                                          lastHeardMs: f.clock.nowMs())
        #expect(f.router().resolve().route.brain == .onDevice)
        #expect(f.router().resolve().reason.contains("is this Homebase"))
    }

    @Test func aClockThatMovedBackMakesAdvertsStale() {
        // Received "in the future": this machine's clock was set back after receipt.
        let f = Self.ownFacts(age: -2 * hour)
        #expect(f.router().resolve().route.brain == .onDevice)
        #expect(f.router().resolve().reason.contains("in the future"))
        // Within the tolerance it still counts.
        #expect(Self.ownFacts(age: -1_000).router().resolve().route.brain == .ownHomebase)
    }

    @Test func windowsAreConfigurable() {
        var f = Self.ownFacts(age: 30)
        f.limits = FreshnessLimits(ownAdvertMaxAgeMs: 50, joinedMaxSilenceMs: 50, clockStepToleranceMs: 0)
        #expect(f.router().resolve().route.brain == .ownHomebase)
        f.clock.advance(ms: 25)
        #expect(f.router().resolve().route.brain == .onDevice)
        #expect(f.router().resolve().reason.contains("55 ms old (limit 50 ms)"))
    }

    /// resolve() has no network dependency: it only reads the injected facts and never builds
    /// a provider (the only way this module reaches a runtime).
    @Test func resolveNeverBuildsAProvider() {
        var f = Self.ownFacts()
        f.endpoint.endpoint = LocalEndpoint(url: "http://127.0.0.1:1", models: ["llama3"])
        for _ in 0..<100 { _ = f.router().resolve() }
        #expect(f.factory.builds.isEmpty)
        _ = f.router().provider()
        #expect(f.factory.builds == ["localEndpoint(http://127.0.0.1:1, llama3)"])
    }
}

extension RouteDecision {
    static func onDeviceForTest(_ reason: String) -> RouteDecision {
        var d = Self.sample
        d.reason = reason
        return d
    }
    /// An on-device decision of the built-in model, built through the public router.
    static var sample: RouteDecision {
        var f = FakeFacts()
        f.settings.settings = RoutingSettings([.modelSource: "on-device"])
        return f.router().resolve()
    }
}

/// Keys present when resolve() asks, gone when the provider is built (a test double).
struct VanishingKeys: KeyRing {
    func hasKey(_ cloud: Cloud) throws -> Bool { true }
    func key(_ cloud: Cloud) throws -> SecretBytes? { nil }
}

/// Records the model each request names (a test double).
final class SpyFactory: BrainFactory {
    private let seen = Mutex<[String]>([])
    var models: [String] { seen.withLock { $0 } }

    struct Spy: ChatProvider {
        let brain: BrainKind
        let factory: SpyFactory
        func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error> {
            factory.seen.withLock { $0.append(request.model) }
            return AsyncThrowingStream { $0.finish() }
        }
    }
    func brain(for route: Route) -> any ChatProvider { Spy(brain: route.brain, factory: self) }
}
