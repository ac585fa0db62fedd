import Inference

/// The on-device engine: one `llama-server` per process, started on first use, shared by
/// every call, restarted with backoff after a crash, stopped with the guest.
///
/// One model at a time: asking for another model file restarts the server on it. A crash is
/// noticed at the next use (the child is reaped), and the restart waits out the backoff first.
public actor LlamaServerSupervisor {
    /// A healthy server: where it listens and what it serves.
    public struct Endpoint: Sendable, Equatable {
        /// `http://127.0.0.1:PORT`.
        public var url: String
        /// The `--alias`: the model name requests carry.
        public var alias: String
        public var modelPath: String
        /// The projector it was started with (`GGUFTarget.projector`).
        public var projector: String? = nil
        public var pid: Int32
    }

    struct Running {
        var child: ChildProcess
        var endpoint: Endpoint
        var startedAt: ContinuousClock.Instant
        /// How the start was seen healthy (`waitHealthy`), for the log.
        var seenBy = "a /health poll"
    }

    nonisolated public let configuration: Configuration
    var running: Running?
    var starting: (model: GGUFTarget, task: Task<Running, Error>)?
    private var crashesInARow = 0
    private var notBefore: ContinuousClock.Instant?
    var stopped = false
    /// This supervisor wrote `engine.json` (so its stop removes it).
    var announced = false
    /// Starts so far (tests and `status` read it).
    public private(set) var starts = 0
    /// How each request's `endpoint(for:)` found the engine, and the warm floor's starts (+Warm.swift).
    public internal(set) var found = Found()
    /// The last crash, in words, for logs and `status`.
    public private(set) var lastCrash: String?

    public init(_ configuration: Configuration) { self.configuration = configuration }

    /// The pid of the running server, nil when none runs.
    public var pid: Int32? { running.flatMap { $0.child.isRunning ? $0.endpoint.pid : nil } }

    /// A healthy server on `model`: the running one, or one started (or restarted) now.
    public func endpoint(for model: GGUFTarget) async throws -> Endpoint {
        try await endpoint(for: model, warming: false)
    }

    /// `warming`: the warm floor's own start (`warm(_:)`), not counted in `found` as a request.
    func endpoint(for model: GGUFTarget, warming: Bool) async throws -> Endpoint {
        guard !stopped else { throw EngineError.stopped }
        if let r = running {
            if let status = r.child.exitStatus() {
                noteCrash(ChildProcess.describe(status), ranFor: ContinuousClock.now - r.startedAt)
                running = nil
            } else if r.endpoint.modelPath == model.path && r.endpoint.projector == model.projector {
                if !warming { found.running += 1 }
                return r.endpoint
            } else {
                running = nil
                await r.child.terminate(grace: configuration.stopGrace)
            }
        }
        if let s = starting, s.model == model {
            if !warming {
                found.starting += 1
                configuration.events?("engine: a request joined the start under way")
            }
            return try await s.task.value.endpoint
        }
        if warming { found.warmStarts += 1 } else {
            found.cold += 1
            configuration.events?("engine: a request starts it (cold)")
        }
        return try await install(model, launch(model), warming: warming)
    }

    /// Begins a start on `model` (after any crash backoff); `starting` is set before this returns,
    /// so a request arriving next joins it.
    func launch(_ model: GGUFTarget) -> Task<Running, Error> {
        let task = Task { [configuration, notBefore] in
            if let notBefore { try await Task.sleep(until: notBefore, clock: .continuous) }
            return try await Self.start(model, configuration)
        }
        starting = (model, task)
        return task
    }

    /// Waits for a start and makes it the running server.
    func install(_ model: GGUFTarget, _ task: Task<Running, Error>, warming: Bool) async throws -> Endpoint {
        defer { if starting?.model == model { starting = nil } }
        let began = ContinuousClock.now
        do {
            let r = try await task.value
            starts += 1
            let ms = (ContinuousClock.now - began).components
            configuration.events?("engine: llama-server pid \(r.endpoint.pid) healthy on \(model.alias) after "
                                  + "\(ms.seconds * 1000 + ms.attoseconds / 1_000_000_000_000_000) ms, seen by \(r.seenBy) (started by \(warming ? "the warm floor" : "a request"))")
            guard !stopped else { await r.child.terminate(grace: configuration.stopGrace); throw EngineError.stopped }
            running = r
            notBefore = nil
            announce(r.endpoint, warm: warming)
            return r.endpoint
        } catch let error as EngineError {
            if case .exited(let how) = error { noteCrash(how, ranFor: .zero) }
            throw error
        }
    }

    /// A request to `endpoint` found no server there: stop that process (if it is still the
    /// running one) and count it as a crash, so the next `endpoint(for:)` restarts it.
    public func unresponsive(_ endpoint: Endpoint, why: String) async {
        guard let r = running, r.endpoint == endpoint else { return }
        running = nil
        let ranFor = ContinuousClock.now - r.startedAt
        if let status = r.child.exitStatus() { return noteCrash(ChildProcess.describe(status), ranFor: ranFor) }
        await r.child.terminate(grace: configuration.stopGrace)
        noteCrash("unresponsive: \(why)", ranFor: ranFor)
    }

    /// Stops the server (SIGTERM, SIGKILL after the grace) and refuses later starts.
    public func stop() async {
        stopped = true
        if let s = starting {
            // A start in flight stops its own child (see `start`); wait for it, or the guest
            // could exit first and leave the server behind.
            s.task.cancel()
            _ = try? await s.task.value
        }
        if let r = running {
            running = nil
            await r.child.terminate(grace: configuration.stopGrace)
        }
        if announced { announce(nil, warm: false) }  // another process's engine.json stays
    }

    private func noteCrash(_ how: String, ranFor: Duration) {
        crashesInARow = ranFor >= configuration.stableAfter ? 1 : crashesInARow + 1
        lastCrash = "llama-server died (\(how))"
        var delay = configuration.initialBackoff
        for _ in 1..<max(crashesInARow, 1) where delay < configuration.maxBackoff { delay = delay * 2 }
        notBefore = ContinuousClock.now + min(delay, configuration.maxBackoff)
    }
}

/// A GGUF file to serve and the name requests call it by.
public struct GGUFTarget: Sendable, Equatable {
    public var path: String
    /// `--alias`: without it llama-server names the model by its file path.
    public var alias: String
    /// `--mmproj`: the multimodal projector that lets the model see images; nil: text only.
    public var projector: String?
    public init(path: String, alias: String, projector: String? = nil) {
        self.path = path; self.alias = alias; self.projector = projector
    }
}
