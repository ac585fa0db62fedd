import Inference
import Routing
import Signing
import OnDeviceEngine

// Seams of the factory: the cloud doors (CloudDoors.swift) and the relay-routed Homebase provider.

/// Builds the cloud brains (`CloudDoors` in the product; scripted brains in unit tests).
public protocol CloudProviderMaker: Sendable {
    func openAI(key: SecretBytes) -> any ChatProvider
    func anthropic(key: SecretBytes) -> any ChatProvider
}

/// Builds the relay-routed Homebase brains (own account's and joined). The relay provider
/// with the watchdog ladder plugs in here.
public protocol RelayProviderMaker: Sendable {
    func ownHomebase(advert: ReceivedAdvert) -> any ChatProvider
    func joinedHomebase(record: JoinedHomebase) -> any ChatProvider
}

/// Until the relay link is configured: fail at once so the fallback answers on-device.
public struct UnlinkedRelayProviders: RelayProviderMaker {
    public init() {}

    public func ownHomebase(advert: ReceivedAdvert) -> any ChatProvider {
        FailingProvider(brain: .ownHomebase, error: .notSent("relay link not configured"))
    }

    public func joinedHomebase(record: JoinedHomebase) -> any ChatProvider {
        FailingProvider(brain: .joinedHomebase, error: .notSent("relay link not configured"))
    }
}

/// The product's `ProviderFactory`: every shape to its brain, never failing.
public struct GuestProviderFactory: ProviderFactory {
    public let supervisor: LlamaServerSupervisor
    public let resolver: LocalModelResolver
    public let cloud: any CloudProviderMaker
    public let relay: any RelayProviderMaker
    public let onDeviceTimeouts: HTTPTimeouts

    public init(supervisor: LlamaServerSupervisor, resolver: LocalModelResolver,
                cloud: any CloudProviderMaker,
                relay: any RelayProviderMaker = UnlinkedRelayProviders(),
                onDeviceTimeouts: HTTPTimeouts = HTTPTimeouts()) {
        self.supervisor = supervisor; self.resolver = resolver; self.cloud = cloud; self.relay = relay
        self.onDeviceTimeouts = onDeviceTimeouts
    }

    /// The on-device brain on the resolved file, or the floor when there is none.
    public func onDevice(model: LocalModel) -> any ChatProvider {
        switch resolver.resolve(model) {
        case .model(let target): OnDeviceProvider(supervisor: supervisor, model: target, timeouts: onDeviceTimeouts)
        case .none(let why): FloorProvider(why: why)
        }
    }

    /// The warm floor: the engine on the resolved file started in the background (nil: no local model).
    public func warm(model: LocalModel) async -> LlamaServerSupervisor.Warming? {
        guard case .model(let target) = resolver.resolve(model) else { return nil }
        return await supervisor.warm(target)
    }

    public func ownHomebase(advert: ReceivedAdvert) -> any ChatProvider { relay.ownHomebase(advert: advert) }
    public func joinedHomebase(record: JoinedHomebase) -> any ChatProvider { relay.joinedHomebase(record: record) }

    public func localEndpoint(url: String, model: String) -> any ChatProvider {
        OllamaProvider(baseURL: url, model: model)
    }

    public func openAI(key: SecretBytes) -> any ChatProvider { cloud.openAI(key: key) }
    public func anthropic(key: SecretBytes) -> any ChatProvider { cloud.anthropic(key: key) }
}
