// The warm floor (#24): the on-device engine is every fallback's brain, so it is started beside a
// request that leaves for a Homebase (and kept running by `guest serve`), not after the Homebase
// has failed. What it costs is the model held in memory (about the GGUF file's size).
extension LlamaServerSupervisor {
    /// How requests found the engine, and how often the warm floor started it.
    public struct Found: Sendable, Equatable {
        /// A request found it running.
        public var running = 0
        /// A request found a start under way (the warm floor's, or another request's) and waited for it.
        public var starting = 0
        /// A request had to start it from cold.
        public var cold = 0
        /// Starts the warm floor began.
        public var warmStarts = 0
        public init(running: Int = 0, starting: Int = 0, cold: Int = 0, warmStarts: Int = 0) {
            self.running = running; self.starting = starting; self.cold = cold; self.warmStarts = warmStarts
        }
    }

    /// What `warm(_:)` did.
    public enum Warming: Sendable, Equatable {
        case alreadyRunning, alreadyStarting, started, stopped
    }

    /// Makes sure a server on `model` runs or is starting, without waiting for it: the start goes
    /// on in the background and a request arriving meanwhile joins it (`found.starting`).
    @discardableResult
    public func warm(_ model: GGUFTarget) -> Warming {
        guard !stopped else { return .stopped }
        if starting != nil { return .alreadyStarting }
        if let r = running, r.child.exitStatus() == nil, r.endpoint.modelPath == model.path, r.endpoint.projector == model.projector {
            return .alreadyRunning
        }
        if running != nil {
            // Dead or on another model: `endpoint` reaps or stops it first (it may wait for that).
            Task { _ = try? await self.endpoint(for: model, warming: true) }
            return .started
        }
        found.warmStarts += 1
        let task = launch(model)  // `starting` is set now: the next request joins this start
        Task { _ = try? await self.install(model, task, warming: true) }
        return .started
    }

    func announce(_ endpoint: Endpoint?, warm: Bool) {
        guard let path = configuration.stateFile else { return }
        announced = endpoint != nil
        if let e = endpoint {
            EngineFile.write(.init(pid: e.pid, model: e.alias, url: e.url, warm: warm), to: path)
        } else {
            EngineFile.remove(path)
        }
    }
}
