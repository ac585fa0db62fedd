// The guest, driven in-process through its own libraries exactly as `guest chat` wires them
// (GuestContext, GuestLink, the router and the fallback runner), after a setup through the
// `guest` CLI (`init --account`, `relay set --homebase`, `settings set`).
import Foundation
import GuestAgent
import Inference
import RelayRouting
import Routing
import Synchronization

public final class BenchGuest: Sendable {
    public let context: GuestContext
    public let link: GuestLink
    /// When the last fallback began (the runner's log line), for the fault timings.
    private let fallbackAt = Stamps()

    /// Sets up the data directory through the CLI; returns the guest's record (hex) for
    /// `homebase devices add`.
    public static func setUp(_ world: World, dataDir: String, account: String, relay: String, hostRecord: String) throws -> String {
        let g = world.bin.path("guest")
        let common = ["--data-dir", dataDir, "--llama-server", world.bin.engine, "--model-path", world.bin.model]
        let initOut = try world.procs.must(g, ["init", "--name", "bench-laptop", "--account", account] + common)
        let record = String(initOut.prefix { $0 != "\n" })
        _ = try world.procs.must(g, ["relay", "set", relay, "--homebase", hostRecord] + common)
        _ = try world.procs.must(g, ["settings", "set", "model.source", "external"] + common)
        _ = try world.procs.must(g, ["settings", "set", "ollama.model", "tiny"] + common)
        return record
    }

    /// Opens the context and the relay link, and reads the mail backlog (the advert).
    public init(_ world: World, dataDir: String, watchdog: WatchdogLimits) async throws {
        let config = GuestConfiguration(paths: GuestPaths(dataDirectory: dataDir), llamaServer: world.bin.engine,
                                        modelPath: world.bin.model, environment: world.procs.environment)
        context = try GuestContext(config)
        await context.warmAtStart()  // as guest chat does, while the link opens (engine.warm)
        var options = GuestLink.Options()
        options.watchdog = watchdog
        options.backlogWait = .seconds(10)
        guard let link = try GuestLinks.open(context, options: options)?.account else {
            throw BenchError("the guest has no relay link (relay set did not take)")
        }
        self.link = link
        await link.waitForBacklog()
    }

    /// Replaces the watchdog limits of the relay-routed providers (same link, same ledger).
    public func use(_ limits: WatchdogLimits) {
        let log = context.log
        context.factory.linkRelay(RelayedHomebases(courier: link.courier, directory: link.directory, limits: limits,
                                                   log: { log.write("homebase: \($0)") }))
    }

    /// The fallback runner as `guest chat` builds it (its log line still written to guest.log),
    /// also noting when each fallback begins; `router` defaults to the context's.
    public func runner(_ router: Router? = nil) -> AnswerRunner {
        let log = context.log, mark = fallbackAt
        var runner = AnswerRunner(router: router ?? context.router,
                                  log: { line in
                                      mark.reset(to: .now)
                                      log.write(line)
                                  })
        runner.warm = context.warmFloor  // as guest chat's (engine.warm)
        return runner
    }

    /// Starts the on-device engine (one token), so fault timings show the running engine;
    /// returns how long the cold start took.
    public func warmOnDevice() async throws -> Duration {
        let start = ContinuousClock.now
        let provider = context.factory.brain(for: .onDevice(.builtIn))
        for try await _ in provider.stream(ChatRequest(model: "default", messages: [.init(role: .user, content: "warm up")],
                                                       maxTokens: 1)) {}
        return .now - start
    }

    /// A router on this guest's real facts with other freshness windows (the stale-advert case).
    public func router(limits: FreshnessLimits) -> Router {
        Router(settings: context.settings, keys: context.keys, localEndpoint: context.runtime,
               ownAdverts: AccountAdverts(account: context.account, database: context.routingDatabase),
               joined: context.joined, role: FixedHostRole(hostKey: nil), clock: SystemWallClock(),
               factory: context.factory, limits: limits)
    }

    /// One answer through `runner`, timed from the call. `onFirstText` runs once, at the
    /// first text (the stall case freezes the Homebase there).
    public func ask(_ runner: AnswerRunner, _ request: ChatRequest,
                    onFirstText: @escaping @Sendable () -> Void = {}) async throws -> Timed {
        fallbackAt.clear()
        let texts = Stamps()
        let start = ContinuousClock.now
        let answer = try await runner.run(request) { _ in
            if texts.add(.now) == 1 { onFirstText() }
        }
        let end = ContinuousClock.now
        let times = texts.all
        let fb = fallbackAt.all.last
        return Timed(start: start, end: end, texts: times, fallbackAt: fb, metadata: answer.metadata)
    }

    public func stop() async {
        link.stop()
        await context.shutdown()
    }
}

/// One timed answer: when each piece of text arrived, and who answered.
public struct Timed: Sendable {
    public let start: ContinuousClock.Instant
    public let end: ContinuousClock.Instant
    public let texts: [ContinuousClock.Instant]
    /// When the runner began the fallback (nil: none).
    public let fallbackAt: ContinuousClock.Instant?
    public let metadata: AnswerMetadata

    public var brain: BrainKind { metadata.brain }
    /// Call to first text, ms.
    public var ttftMs: Double? { texts.first.map { ms($0 - start) } }
    /// First text after the fallback began (the on-device brain's first text).
    public var fallbackText: ContinuousClock.Instant? {
        guard let f = fallbackAt else { return nil }
        return texts.first { $0 > f }
    }
    /// Completion tokens per second of the brain that answered (first text to done).
    public var tokensPerSecond: Double? { metadata.tokensPerSecond }
}

/// Instants noted from any thread.
public final class Stamps: Sendable {
    private let list = Mutex<[ContinuousClock.Instant]>([])
    public init() {}
    /// Appends; returns how many there are now.
    @discardableResult public func add(_ i: ContinuousClock.Instant) -> Int { list.withLock { $0.append(i); return $0.count } }
    public func reset(to i: ContinuousClock.Instant) { list.withLock { $0 = [i] } }
    public func clear() { list.withLock { $0 = [] } }
    public var all: [ContinuousClock.Instant] { list.withLock { $0 } }
}
