import Foundation
import Glibc
@testable import GuestAgent
@testable import OnDeviceEngine
import Inference
import Routing
import Signing
import Testing
import Wire

@Suite struct WiringTests {
    @Test func keyRingReadsOnlyPrivateFilesPerCall() throws {
        let dir = try temporaryDirectory("guest-tests")
        let ring = FileKeyRing(directory: dir)
        #expect(try ring.hasKey(.openAI) == false)
        let path = dir + "/openai"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("  sk-test-123\n".utf8), attributes: [.posixPermissions: 0o644]))
        #expect(try ring.hasKey(.openAI) == false, "a key file others may read counts as absent")
        #expect(try ring.key(.openAI) == nil)
        chmod(path, 0o600)
        #expect(try ring.hasKey(.openAI))
        #expect(try ring.key(.openAI) == SecretBytes(Array("sk-test-123".utf8)))
        #expect(try ring.hasKey(.anthropic) == false)
    }

    @Test func runtimeFileAbsentBadAndGood() throws {
        let dir = try temporaryDirectory("guest-tests")
        let file = RuntimeFile(path: dir + "/runtime.json")
        #expect(try file.verifiedEndpoint() == nil)
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: file.path))
        #expect(throws: GuestError.self) { try file.verifiedEndpoint() }
        try file.write(LocalEndpoint(url: "http://127.0.0.1:11434", models: ["llama3.1:8b"]))
        #expect(try file.verifiedEndpoint() == LocalEndpoint(url: "http://127.0.0.1:11434", models: ["llama3.1:8b"]))
        // What `guest runtime add` writes (LocalAPI's RuntimeRecord): models as objects.
        try Data(#"{"url": "http://127.0.0.1:8080", "kind": "llama-server", "verifiedAt": "2026-12-01T10:00:00Z", "models": [{"tag": "tiny", "capabilities": ["completion"]}, {"tag": "b"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: file.path))
        // Its capabilities are read for the router (#23); a model without them is unknown.
        #expect(try file.verifiedEndpoint() == LocalEndpoint(url: "http://127.0.0.1:8080", models: ["tiny", "b"],
                                                            capabilities: ["tiny": [.completion]]))
    }

    @Test func cloudURLsFromEnvironmentOverConfigOverDefaults() {
        #expect(CloudURLs.resolve(environment: [:]) == CloudURLs(openAI: "https://api.openai.com", anthropic: "https://api.anthropic.com"))
        let file = CloudURLs.resolve(environment: [:], openAI: "http://a", anthropic: "http://b")
        #expect(file == CloudURLs(openAI: "http://a", anthropic: "http://b"))
        let env = CloudURLs.resolve(environment: [CloudURLs.openAIVariable: "http://e", CloudURLs.anthropicVariable: ""],
                                    openAI: "http://a", anthropic: "http://b")
        #expect(env == CloudURLs(openAI: "http://e", anthropic: "http://b"), "an empty variable counts as unset")
    }

    @Test func resolverPrefersTheConfiguredFileAndSaysWhyWhenNone() throws {
        let dir = try temporaryDirectory("guest-tests")
        #expect(LocalModelResolver(configuredPath: nil, store: nil).resolve(.builtIn) == .none(why: "no local model is installed"))
        #expect(LocalModelResolver(configuredPath: nil, store: nil).resolve(.community("x:Q4"))
            == .none(why: "local model x:Q4 is not installed"))
        let missing = LocalModelResolver(configuredPath: dir + "/gone.gguf", store: nil).resolve(.builtIn)
        #expect(missing == .none(why: "the configured model file \(dir)/gone.gguf is missing"))
        let file = dir + "/tiny-seed0.gguf"
        #expect(FileManager.default.createFile(atPath: file, contents: Data([0])))
        #expect(LocalModelResolver(configuredPath: file, store: nil).resolve(.builtIn)
            == .model(GGUFTarget(path: file, alias: "tiny-seed0")))
    }

    @Test func engineLocatorOrder() throws {
        let dir = try temporaryDirectory("guest-tests")
        let env = ["PATH": dir + "/nobin", "HOMEBASE_ENGINE_DIR": dir]
        #expect(throws: EngineError.self) { try EngineLocator(environment: env).locate() }
        try FileManager.default.createDirectory(atPath: dir + "/bin", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: dir + "/bin/llama-server", contents: Data(), attributes: [.posixPermissions: 0o755]))
        #expect(try EngineLocator(environment: env).locate() == dir + "/bin/llama-server")
        // A configured binary that is missing is an error, never silently replaced.
        #expect(throws: EngineError.self) { try EngineLocator(configured: dir + "/other", environment: env).locate() }
    }

    /// The context's router on real facts: a runtime.json serving the selected tag routes to
    /// the local endpoint; without it, an OpenAI choice with no key file stays on-device.
    @Test func contextRoutesOnItsFiles() throws {
        let dir = try temporaryDirectory("guest-tests")
        let context = try GuestContext(GuestConfiguration(paths: GuestPaths(dataDirectory: dir), environment: [:]))
        try context.settings.set(.modelSource, "external")
        try context.settings.set(.externalRuntime, "openai")
        #expect(context.router.resolve().route.brain == .onDevice)
        try FileManager.default.createDirectory(atPath: context.paths.keys, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: context.paths.keys + "/openai", contents: Data("sk-x".utf8),
                                       attributes: [.posixPermissions: 0o600]))
        #expect(context.router.resolve().route.brain == .openAI)
        try context.settings.set(.externalRuntime, "ollama")
        try context.settings.set(.ollamaModel, "qwen2.5:0.5b")
        try context.runtime.write(LocalEndpoint(url: "http://127.0.0.1:11434", models: ["qwen2.5:0.5b"]))
        let decision = context.router.resolve()
        #expect(decision.route.target == "local endpoint " + "http://127.0.0.1:11434")
        #expect(context.router.provider().brain == .localEndpoint)
        #expect(GuestStatus.gather(context).keys["OpenAI"] == "present")
    }

    /// Unlinked, a Homebase route fails at once, so it answers from the floor (no model here) with
    /// the relay's failure recorded, never an error; the cloud routes fail in their stream.
    @Test func defaultSeamsFailClearly() async throws {
        let dir = try temporaryDirectory("guest-tests")
        let brains = GuestBrains(supervisor: Engine.supervisor(), resolver: LocalModelResolver(configuredPath: nil, store: nil),
                                 cloud: CloudDoors(keysDirectory: dir + "/keys",
                                                   urls: CloudURLs(openAI: "http://127.0.0.1:1", anthropic: "http://127.0.0.1:1")))
        #expect(!brains.isLinked)
        let key = Bytes32(unchecked: [UInt8](repeating: 1, count: 32))
        let advert = AppMessage.Advert(hostKey: key, sequence: 1, timestampMs: 0, models: [])
        let joined = JoinedHomebase(hostKey: key, hpkeKey: [UInt8](repeating: 7, count: 32), relayURL: "ws://127.0.0.1:9",
                                    state: .joined, models: ["m"])
        for route in [Route.ownHomebase(ReceivedAdvert(advert: advert, receiptMs: 0), tag: "m"), .joinedHomebase(joined, tag: "m")] {
            let brain = brains.brain(for: route)
            #expect(brain.brain == route.brain)
            let r = await collect(brain.stream(ChatRequest(model: "m", messages: [])))
            #expect(r.error as? BrainFailure == .notSent("relay link not configured"))
        }
        #expect(brains.brain(for: .onDevice(.builtIn)).brain == .floor)
        // The cloud doors read the key slot per request: no slot file, no request, `unreachable`.
        for route in [Route.cloud(.anthropic, model: nil), .cloud(.openAI, model: "x")] {
            let brain = brains.brain(for: route)
            #expect(brain.brain == route.brain)
            let a = await collect(brain.stream(ChatRequest(model: "m", messages: [])))
            guard case .unreachable(let why)? = a.error as? InferenceError else { Issue.record("expected unreachable"); return }
            #expect(why.contains("no API key on file (\(dir)/keys/"))
        }
    }

    @Test func summaryLineNamesTheBrainAndTheFallback() {
        var m = AnswerMetadata(brain: .onDevice, routeReason: "r")
        m.timeToFirstTokenMs = 8.25
        m.tokensPerSecond = 4900.4
        m.tried = [.init(brain: .ownHomebase, failure: .watchdog(.accept))]
        #expect(m.summaryLine == "on-device · first token 8.2 ms · 4900 tok/s · fell back: homebase failed (timed out: accept)")
    }
}
