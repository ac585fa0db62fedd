import Foundation
import Inference
import ModelStore
import Routing
import Signing
import Storage
import OnDeviceEngine

/// What a guest is configured with: flags, config file and environment, already merged.
public struct GuestConfiguration: Sendable {
    public var paths: GuestPaths
    /// `llama-server` to run; nil searches PATH then the engine directory.
    public var llamaServer: String?
    /// A GGUF file served as the built-in model (the tiny model in tests).
    public var modelPath: String?
    public var environment: [String: String]
    /// The model hub (`HF_ENDPOINT`, `HF_TOKEN` from `environment` by default).
    public var hub: HubConfig
    /// Health deadline of an engine start (tests shorten it).
    public var healthDeadline: Duration
    /// Where OpenAI and Anthropic are (the real services unless configured).
    public var cloudURLs: CloudURLs
    /// The key ring; nil reads `<data-dir>/keys/`.
    public var keys: (any KeyRing)?
    /// The router's freshness windows (own advert 10 min, joined host 24 h; tests shorten them).
    public var freshness = FreshnessLimits()
    /// How long a Homebase that timed out (accept) or went silent is skipped unless heard from
    /// (`cooldowns.json`); zero: never skipped.
    public var cooldown: Duration = .seconds(60)

    public init(paths: GuestPaths, llamaServer: String? = nil, modelPath: String? = nil,
                environment: [String: String], healthDeadline: Duration = .seconds(120),
                cloudURLs: CloudURLs = CloudURLs(), keys: (any KeyRing)? = nil) {
        self.paths = paths; self.llamaServer = llamaServer; self.modelPath = modelPath
        self.environment = environment; self.healthDeadline = healthDeadline
        self.hub = HubConfig(environment: environment)
        self.cloudURLs = cloudURLs; self.keys = keys
    }
}

/// A guest's open stores and its router on real facts. One per process: it owns the one
/// `LlamaServerSupervisor`; call `shutdown()` before exiting.
public final class GuestContext: Sendable {
    public let configuration: GuestConfiguration
    public var paths: GuestPaths { configuration.paths }
    public let routingDatabase: Database
    public let settings: SettingsStore
    public let keys: any KeyRing
    public let runtime: RuntimeFile
    public let account: AccountKeyFile
    public let joined: JoinedHomebaseStore
    public let modelStore: ModelStore
    public let supervisor: LlamaServerSupervisor
    /// Every brain the router and the fallback build (`GuestLinks.open` links its relay side).
    public let factory: GuestBrains
    public let router: Router
    public let log: EventLog
    /// Homebases skipped for a while, shared by every request and every process of this guest.
    public let cooldowns: CooldownFile

    public init(_ configuration: GuestConfiguration) throws {
        self.configuration = configuration
        let paths = configuration.paths
        try paths.create()
        routingDatabase = try RoutingSchema.open(path: paths.routingStore)
        settings = SettingsStore(database: routingDatabase)
        keys = configuration.keys ?? FileKeyRing(directory: paths.keys)
        runtime = RuntimeFile(path: paths.runtime)
        account = AccountKeyFile(path: paths.accountKey)
        joined = JoinedHomebaseStore(database: routingDatabase)
        let eventLog = EventLog(path: paths.log)
        log = eventLog
        let locator = EngineLocator(configured: configuration.llamaServer, environment: configuration.environment)
        var engine = LlamaServerSupervisor.Configuration(locator: locator, healthDeadline: configuration.healthDeadline,
                                                         logPath: paths.engineLog, stateFile: paths.engineState)
        engine.events = { eventLog.write($0) }
        supervisor = LlamaServerSupervisor(engine)
        let sup = supervisor
        modelStore = try ModelStore(config: .init(directory: paths.dataDirectory, hub: configuration.hub)) { candidate in
            try await Self.loadCheck(candidate, sup)
        }
        factory = GuestBrains(supervisor: supervisor,
                              resolver: LocalModelResolver(configuredPath: configuration.modelPath, store: modelStore),
                              cloud: CloudDoors(keysDirectory: paths.keys, urls: configuration.cloudURLs))
        cooldowns = CooldownFile(path: paths.cooldowns, length: configuration.cooldown)
        var router = Router(settings: settings, keys: keys, localEndpoint: runtime,
                            ownAdverts: AccountAdverts(account: account, database: routingDatabase),
                            joined: joined, role: FixedHostRole(hostKey: nil), clock: SystemWallClock(), factory: factory,
                            onDevice: ResolvedOnDeviceAbilities(resolver: factory.resolver), limits: configuration.freshness)
        if configuration.cooldown > .zero { router.cooldowns = cooldowns }
        router.away = AwayFile(path: paths.away)
        self.router = router
    }

    /// The fallback runner on this context's router, logging to `guest.log`.
    public var runner: AnswerRunner {
        let log = self.log
        var runner = AnswerRunner(router: router, log: { log.write($0) })
        if configuration.cooldown > .zero { runner.cooldowns = cooldowns }
        runner.warm = warmFloor
        return runner
    }

    /// Stops the engine (SIGTERM, then SIGKILL after the grace).
    public func shutdown() async { await supervisor.stop() }

    /// The store's load check: the shared engine loads the files and answers `/health`.
    /// An engine that exits on them means the model can never run here (`unsupported`), but
    /// only when the engine itself runs (`--version`): a broken engine is `engineBroken`, which
    /// leaves the model `failed` (pull it again once the engine is fixed).
    static func loadCheck(_ candidate: LoadCandidate, _ supervisor: LlamaServerSupervisor,
                          engineCheck: EngineCheck = EngineCheck()) async throws {
        do {
            _ = try await supervisor.endpoint(for: GGUFTarget(path: candidate.modelPath, alias: candidate.id,
                                                              projector: candidate.projectorPath))
        } catch EngineError.exited(let how) {
            let binary = (try? supervisor.configuration.locator.locate()) ?? "llama-server"
            if let problem = await engineCheck.problem(binary: binary) {
                throw GuestError.engineBroken(path: binary, detail: problem)
            }
            throw ModelStoreError.unsupported(model: candidate.id, detail: "llama-server could not load it (\(how))")
        }
    }
}
