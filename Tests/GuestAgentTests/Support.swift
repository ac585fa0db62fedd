import Foundation
import Glibc
@testable import GuestAgent
@testable import OnDeviceEngine
import Inference
import Routing
import Signing
import Testing

// A test that cannot run its real dependency fails with TestSupport's SetupError (never a
// silent skip); TestSupport is re-exported for every file of this target.
@_exported import TestSupport

/// The real engine: llama-server and the tiny model from scripts/engine.
enum Engine {
    static let environment = ProcessInfo.processInfo.environment
    static var directory: String { EngineLocator(environment: environment).engineDirectory }
    static var binary: String { directory + "/bin/llama-server" }
    static var tinyModel: String { directory + "/models/tiny-seed0.gguf" }
    static let hint = "run scripts/engine/install.sh and scripts/engine/tiny_model.sh"

    /// The tiny model as a target, or a failure that says how to install it.
    static func tiny() throws -> GGUFTarget {
        guard access(binary, X_OK) == 0 else { throw SetupError("llama-server missing at \(binary): \(hint)") }
        guard access(tinyModel, R_OK) == 0 else { throw SetupError("tiny model missing at \(tinyModel): \(hint)") }
        return GGUFTarget(path: tinyModel, alias: "tiny")
    }

    static func supervisor(deadline: Duration = .seconds(120)) -> LlamaServerSupervisor {
        LlamaServerSupervisor(.init(locator: EngineLocator(configured: binary, environment: environment),
                                    healthDeadline: deadline, initialBackoff: .milliseconds(10),
                                    stopGrace: .milliseconds(500), threads: 1))
    }
}

/// Runs `body` with a fresh supervisor and always stops it.
func withSupervisor<R>(_ body: (LlamaServerSupervisor) async throws -> R) async throws -> R {
    let s = Engine.supervisor()
    do {
        let r = try await body(s)
        await s.stop()
        return r
    } catch {
        await s.stop()
        throw error
    }
}

/// Collects a provider's stream: the text, whether `.done` came, and the error if one ended it.
func collect(_ stream: AsyncThrowingStream<ChatEvent, Error>) async -> (text: String, done: Bool, error: Error?) {
    var text = "", done = false
    do {
        for try await e in stream {
            if case .text(let t) = e { text += t }
            if case .done = e { done = true }
        }
        return (text, done, nil)
    } catch {
        return (text, done, error)
    }
}

func processExists(_ pid: Int32) -> Bool { kill(pid, 0) == 0 }

// MARK: scripted brains and facts for the runner

/// Records every request it gets, then plays `events` and ends with `error` (or finishes).
final class RecordingProvider: ChatProvider, @unchecked Sendable {  // `lock` guards `requests`
    let brain: BrainKind
    let events: [ChatEvent]
    let error: (any Error)?
    let inner: (any ChatProvider)?
    private let lock = NSLock()
    private var _requests: [ChatRequest] = []
    var requests: [ChatRequest] { lock.withLock { _requests } }

    /// `error`: a brain's own failure (a cloud, an engine); `failure`: a rung a relay-routed
    /// Homebase throws (`BrainFailure`).
    init(brain: BrainKind, events: [ChatEvent] = [], error: InferenceError? = nil, failure: BrainFailure? = nil,
         wrapping inner: (any ChatProvider)? = nil) {
        self.brain = inner?.brain ?? brain; self.events = events; self.inner = inner
        self.error = failure.map { $0 as any Error } ?? error.map { $0 as any Error }
    }

    func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error> {
        lock.withLock { _requests.append(request) }
        if let inner { return inner.stream(request) }
        let (events, error) = (self.events, self.error)
        return AsyncThrowingStream { out in
            for e in events { out.yield(e) }
            if let error { out.finish(throwing: error) } else { out.finish() }
        }
    }
}

struct StaticSettings: SettingsSource {
    var values: [SettingName: String]
    func routingSettings() throws -> RoutingSettings { RoutingSettings(values) }
}

struct StaticKeys: KeyRing {
    var present: Set<String>
    func hasKey(_ cloud: Cloud) throws -> Bool { present.contains(cloud.rawValue) }
    func key(_ cloud: Cloud) throws -> SecretBytes? { present.contains(cloud.rawValue) ? SecretBytes(Array("sk-test".utf8)) : nil }
}

struct NoFacts: LocalEndpointSource, OwnAdvertSource, JoinedHomebaseSource {
    func verifiedEndpoint() throws -> LocalEndpoint? { nil }
    func latestOwnAdvert() throws -> ReceivedAdvert? { nil }
    func joinedHomebase(_ hostKey: PublicKey) throws -> JoinedHomebase? { nil }
}

/// Every brain the factory builds is one of these.
struct ScriptedFactory: BrainFactory {
    let onDeviceBrain: any ChatProvider
    let cloudBrain: any ChatProvider
    func brain(for route: Route) -> any ChatProvider {
        if case .onDevice = route { return onDeviceBrain }
        return cloudBrain
    }
}

/// A router that chooses OpenAI (the user chose it; a key is on file), building the given brains,
/// and a runner whose fallback is `onDevice`.
func openAIRunner(primary: any ChatProvider, onDevice: any ChatProvider,
                  settings: [SettingName: String] = [.modelSource: "external", .externalRuntime: "openai"]) -> AnswerRunner {
    let factory = ScriptedFactory(onDeviceBrain: onDevice, cloudBrain: primary)
    let router = Router(settings: StaticSettings(values: settings),
                        keys: StaticKeys(present: ["OpenAI"]), localEndpoint: NoFacts(), ownAdverts: NoFacts(),
                        joined: NoFacts(), role: FixedHostRole(hostKey: nil), clock: SystemWallClock(), factory: factory)
    return AnswerRunner(router: router)
}
