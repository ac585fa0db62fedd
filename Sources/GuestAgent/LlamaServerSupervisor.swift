import Inference

/// The on-device engine: one `llama-server` per process, started on first use, shared by
/// every call, restarted with backoff after a crash, stopped with the guest.
///
/// One model at a time: asking for another model file restarts the server on it. A crash is
/// noticed at the next use (the child is reaped), and the restart waits out the backoff first.
public actor LlamaServerSupervisor {
    public struct Configuration: Sendable {
        public var locator: EngineLocator
        /// How long `/health` may take to answer 200 after a start (a large model loads slowly).
        public var healthDeadline: Duration
        public var healthPoll: Duration
        /// First restart delay after a crash; doubled per crash in a row, up to `maxBackoff`.
        public var initialBackoff: Duration
        public var maxBackoff: Duration
        /// A server that ran this long before dying counts as a first crash again.
        public var stableAfter: Duration
        /// SIGTERM, then SIGKILL after this.
        public var stopGrace: Duration
        /// `--threads`; nil lets llama-server choose.
        public var threads: Int?
        /// `--ctx-size`; nil uses the model's.
        public var contextSize: Int?
        /// The server's stdout and stderr, appended; nil discards them.
        public var logPath: String?
        public var extraArguments: [String]

        public init(locator: EngineLocator, healthDeadline: Duration = .seconds(120),
                    healthPoll: Duration = .milliseconds(50), initialBackoff: Duration = .milliseconds(250),
                    maxBackoff: Duration = .seconds(10), stableAfter: Duration = .seconds(60),
                    stopGrace: Duration = .seconds(2), threads: Int? = nil, contextSize: Int? = nil,
                    logPath: String? = nil, extraArguments: [String] = []) {
            self.locator = locator; self.healthDeadline = healthDeadline; self.healthPoll = healthPoll
            self.initialBackoff = initialBackoff; self.maxBackoff = maxBackoff; self.stableAfter = stableAfter
            self.stopGrace = stopGrace; self.threads = threads; self.contextSize = contextSize
            self.logPath = logPath; self.extraArguments = extraArguments
        }
    }

    /// A healthy server: where it listens and what it serves.
    public struct Endpoint: Sendable, Equatable {
        /// `http://127.0.0.1:PORT`.
        public var url: String
        /// The `--alias`: the model name requests carry.
        public var alias: String
        public var modelPath: String
        public var pid: Int32
    }

    private struct Running {
        var child: ChildProcess
        var endpoint: Endpoint
        var startedAt: ContinuousClock.Instant
    }

    public let configuration: Configuration
    private var running: Running?
    private var starting: (model: GGUFTarget, task: Task<Running, Error>)?
    private var crashesInARow = 0
    private var notBefore: ContinuousClock.Instant?
    private var stopped = false
    /// Starts so far (tests and `status` read it).
    public private(set) var starts = 0
    /// The last crash, in words, for logs and `status`.
    public private(set) var lastCrash: String?

    public init(_ configuration: Configuration) { self.configuration = configuration }

    /// The pid of the running server, nil when none runs.
    public var pid: Int32? { running.flatMap { $0.child.isRunning ? $0.endpoint.pid : nil } }

    /// A healthy server on `model`: the running one, or one started (or restarted) now.
    public func endpoint(for model: GGUFTarget) async throws -> Endpoint {
        guard !stopped else { throw GuestError.stopped }
        if let r = running {
            if let status = r.child.exitStatus() {
                noteCrash(ChildProcess.describe(status), ranFor: ContinuousClock.now - r.startedAt)
                running = nil
            } else if r.endpoint.modelPath == model.path {
                return r.endpoint
            } else {
                running = nil
                await r.child.terminate(grace: configuration.stopGrace)
            }
        }
        if let s = starting, s.model == model { return try await s.task.value.endpoint }
        let task = Task { [configuration, notBefore] in
            if let notBefore { try await Task.sleep(until: notBefore, clock: .continuous) }
            return try await Self.start(model, configuration)
        }
        starting = (model, task)
        defer { if starting?.model == model { starting = nil } }
        do {
            let r = try await task.value
            starts += 1
            guard !stopped else { await r.child.terminate(grace: configuration.stopGrace); throw GuestError.stopped }
            running = r
            notBefore = nil
            return r.endpoint
        } catch let error as GuestError {
            if case .engineExited(let how) = error { noteCrash(how, ranFor: .zero) }
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
        starting?.task.cancel()
        if let r = running {
            running = nil
            await r.child.terminate(grace: configuration.stopGrace)
        }
    }

    private func noteCrash(_ how: String, ranFor: Duration) {
        crashesInARow = ranFor >= configuration.stableAfter ? 1 : crashesInARow + 1
        lastCrash = "llama-server died (\(how))"
        var delay = configuration.initialBackoff
        for _ in 1..<max(crashesInARow, 1) where delay < configuration.maxBackoff { delay = delay * 2 }
        notBefore = ContinuousClock.now + min(delay, configuration.maxBackoff)
    }

    private static func start(_ model: GGUFTarget, _ c: Configuration) async throws -> Running {
        let binary = try c.locator.locate()
        let port = try freeLoopbackPort()
        var args = ["--model", model.path, "--host", "127.0.0.1", "--port", "\(port)", "--alias", model.alias]
        if let t = c.threads { args += ["--threads", "\(t)"] }
        if let n = c.contextSize { args += ["--ctx-size", "\(n)"] }
        let child = try ChildProcess.spawn(binary, args + c.extraArguments, logPath: c.logPath)
        let endpoint = Endpoint(url: "http://127.0.0.1:\(port)", alias: model.alias, modelPath: model.path, pid: child.pid)
        do {
            try await waitHealthy(endpoint.url, child, c)
        } catch {
            await child.terminate(grace: c.stopGrace)
            throw error
        }
        return Running(child: child, endpoint: endpoint, startedAt: .now)
    }

    /// Polls `/health` until 200 (503 while the model loads), the child exits, or the deadline.
    private static func waitHealthy(_ url: String, _ child: ChildProcess, _ c: Configuration) async throws {
        let http = HTTPStreamClient()
        let quick = HTTPTimeouts(connect: .seconds(1), firstByte: .seconds(2), idle: .seconds(2))
        let start = ContinuousClock.now
        while ContinuousClock.now - start < c.healthDeadline {
            if let status = child.exitStatus() { throw GuestError.engineExited(how: ChildProcess.describe(status)) }
            if let r = try? await http.send(HTTPStreamRequest(url: url + "/health", timeouts: quick)) {
                _ = try? await r.collect(limit: 1 << 16)
                if r.status == 200 { return }
            }
            try await Task.sleep(for: c.healthPoll)
        }
        if let status = child.exitStatus() { throw GuestError.engineExited(how: ChildProcess.describe(status)) }
        let ms = c.healthDeadline.components
        throw GuestError.engineNotHealthy(deadlineMs: ms.seconds * 1000 + ms.attoseconds / 1_000_000_000_000_000)
    }
}

/// A GGUF file to serve and the name requests call it by.
public struct GGUFTarget: Sendable, Equatable {
    public var path: String
    /// `--alias`: without it llama-server names the model by its file path.
    public var alias: String
    public init(path: String, alias: String) { self.path = path; self.alias = alias }
}
