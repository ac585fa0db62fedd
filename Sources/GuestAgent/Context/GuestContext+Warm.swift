import Inference
import Routing
import OnDeviceEngine

// The warm floor (#24): see LlamaServerSupervisor+Warm.swift.
extension GuestContext {
    /// The warm floor (#24) for `AnswerRunner.warm`: unless `engine.warm` is off, the on-device
    /// engine is started beside a request that leaves for a Homebase (one line in guest.log).
    public var warmFloor: @Sendable (LocalModel, BrainKind) async -> Void {
        let factory = self.factory, settings = self.settings, log = self.log
        return { model, brain in
            guard ((try? settings.routingSettings()) ?? RoutingSettings()).warmFloor else { return }
            if case .started = await factory.warm(model: model) {
                log.write("warm floor: starting the on-device engine beside the request to \(brain.rawValue) (off: guest settings set engine.warm off)")
            }
        }
    }

    /// The on-device engine warm unless `engine.warm` is off (`guest serve`). What it did, in words.
    public func keepWarm() async -> String {
        guard ((try? settings.routingSettings()) ?? RoutingSettings()).warmFloor else { return "warm floor off (engine.warm)" }
        switch await factory.warm(model: router.resolve().localModel) {
        case .started?, .alreadyStarting?: return "warm floor: starting the on-device engine (off: guest settings set engine.warm off)"
        case .alreadyRunning?: return "warm floor: the on-device engine is running"
        case .stopped?: return "warm floor: the guest is stopping"
        case nil: return "warm floor: no local model to keep warm"
        }
    }


    /// `guest chat` and `guest serve` at start: when the route is a Homebase, the engine starts
    /// while the relay link opens, so a fallback right after (the Homebase gone: the relay says so
    /// in ~2 ms) finds it running or further along (its start is tens of ms even for the tiny model).
    public func warmAtStart() async {
        guard ((try? settings.routingSettings()) ?? RoutingSettings()).warmFloor else { return }
        let decision = router.resolve()
        guard decision.route.homebaseKey != nil else { return }
        if case .started? = await factory.warm(model: decision.localModel) {
            log.write("warm floor: starting the on-device engine at start (the route is a Homebase; off: guest settings set engine.warm off)")
        }
    }

    /// `guest serve`: warm now (logged), then every `interval` (a crashed engine is started again
    /// after its backoff; logged only when it starts). Cancel the task at exit.
    public func keepWarm(every interval: Duration) -> Task<Void, Never> {
        let log = self.log
        return Task {
            log.write("serve: " + (await keepWarm()))
            while interval > .zero, (try? await Task.sleep(for: interval)) != nil {
                let words = await keepWarm()
                if words.contains("starting") { log.write("serve: " + words) }
            }
        }
    }
}
