import Inference
import Routing
import Signing

// Seams the other helpers fill: the cloud doors and the relay-routed Homebase provider.

/// Builds the cloud brains. The doors helper replaces the default with its own clients.
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

/// Until the doors land: OpenAI through `OpenAIChatClient` on api.openai.com; Anthropic fails
/// with a clear error (the runner then answers on-device).
public struct DefaultCloudProviders: CloudProviderMaker {
    public var openAIBaseURL: String

    public init(openAIBaseURL: String = "https://api.openai.com/v1") { self.openAIBaseURL = openAIBaseURL }

    public func openAI(key: SecretBytes) -> any ChatProvider {
        let text = key.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        return OpenAIChatClient(.init(baseURL: openAIBaseURL, apiKey: text, brain: .openAI))
    }

    public func anthropic(key: SecretBytes) -> any ChatProvider {
        FailingProvider(brain: .anthropic, error: .unreachable("the Anthropic client is not built into this guest yet"))
    }
}

/// Until the relay link is configured: fail at once so the fallback answers on-device.
public struct UnlinkedRelayProviders: RelayProviderMaker {
    public init() {}

    public func ownHomebase(advert: ReceivedAdvert) -> any ChatProvider {
        FailingProvider(brain: .ownHomebase, error: .unreachable("relay link not configured"))
    }

    public func joinedHomebase(record: JoinedHomebase) -> any ChatProvider {
        FailingProvider(brain: .joinedHomebase, error: .unreachable("relay link not configured"))
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
                cloud: any CloudProviderMaker = DefaultCloudProviders(),
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

    public func ownHomebase(advert: ReceivedAdvert) -> any ChatProvider { relay.ownHomebase(advert: advert) }
    public func joinedHomebase(record: JoinedHomebase) -> any ChatProvider { relay.joinedHomebase(record: record) }

    public func localEndpoint(url: String, model: String) -> any ChatProvider {
        OpenAIChatClient(.init(baseURL: url, brain: .localEndpoint))
    }

    public func openAI(key: SecretBytes) -> any ChatProvider { cloud.openAI(key: key) }
    public func anthropic(key: SecretBytes) -> any ChatProvider { cloud.anthropic(key: key) }
}
