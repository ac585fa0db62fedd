import Inference
import OnDeviceEngine
import RelayRouting
import Routing
import Synchronization

/// The product's `BrainFactory`: every route to its brain, one constructor each, never failing
/// (docs/ARCHITECTURE.md, "One factory over one protocol"). A new brain is a case here.
///
/// The Homebase brains need the relay: `GuestLinks.open` installs its Couriers
/// (`RelayedHomebases`, RelayRouting) with `linkRelay`. Until then a Homebase route
/// fails at once (`.notSent`) so the runner answers on-device.
public final class GuestBrains: BrainFactory {
    public let supervisor: LlamaServerSupervisor
    public let resolver: LocalModelResolver
    public let cloud: CloudDoors
    public let onDeviceTimeouts: HTTPTimeouts
    private let relayed = Mutex<RelayedHomebases?>(nil)

    public init(supervisor: LlamaServerSupervisor, resolver: LocalModelResolver, cloud: CloudDoors,
                onDeviceTimeouts: HTTPTimeouts = HTTPTimeouts()) {
        self.supervisor = supervisor; self.resolver = resolver; self.cloud = cloud
        self.onDeviceTimeouts = onDeviceTimeouts
    }

    public func brain(for route: Route) -> any ChatProvider {
        switch route {
        case .onDevice(let model):
            // The on-device brain on the resolved file, or the floor when there is none.
            switch resolver.resolve(model) {
            case .model(let target): return OnDeviceProvider(supervisor: supervisor, model: target, timeouts: onDeviceTimeouts)
            case .none(let why): return FloorProvider(why: why)
            }
        case .joinedHomebase(let record, _):
            return relay?.joinedHomebase(record: record) ?? Self.unlinked(.joinedHomebase)
        case .ownHomebase(let received, _):
            return relay?.ownHomebase(advert: received) ?? Self.unlinked(.ownHomebase)
        case .localEndpoint(let endpoint, let tag):
            return OllamaProvider(baseURL: endpoint.url, model: tag)
        case .cloud(.openAI, _):
            return cloud.openAI()
        case .cloud(.anthropic, _):
            return cloud.anthropic()
        }
    }

    /// Installs (or, with nil, removes) the relay's side of the Homebase brains.
    public func linkRelay(_ homebases: RelayedHomebases?) { relayed.withLock { $0 = homebases } }

    /// The installed relay side (nil while unlinked): embeddings use its Couriers too.
    public var relay: RelayedHomebases? { relayed.withLock { $0 } }

    public var isLinked: Bool { relay != nil }

    /// The warm floor: the engine on the resolved file started in the background (nil: no local model).
    public func warm(model: LocalModel) async -> LlamaServerSupervisor.Warming? {
        guard case .model(let target) = resolver.resolve(model) else { return nil }
        return await supervisor.warm(target)
    }

    private static func unlinked(_ brain: BrainKind) -> any ChatProvider {
        FailingProvider(brain: brain, error: .notSent("relay link not configured"))
    }
}
