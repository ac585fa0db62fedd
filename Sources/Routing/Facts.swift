import Inference
import Signing

// The facts the router reads at every call. Each is a small protocol so tests inject them;
// a fact that throws counts as missing (the router routes on-device and says why).

/// The stored routing settings (the `SettingsStore` in the product).
public protocol SettingsSource: Sendable {
    func routingSettings() throws -> RoutingSettings
}

/// A cloud whose API key may be on file.
public enum Cloud: String, Sendable, CaseIterable {
    case openAI = "OpenAI"
    case anthropic = "Anthropic"
}

/// API keys on file. `hasKey` is all `resolve()` reads; `key` is read only to build a provider.
public protocol KeyRing: Sendable {
    func hasKey(_ cloud: Cloud) throws -> Bool
    /// The key in wiped-on-release memory, nil when none is on file.
    func key(_ cloud: Cloud) throws -> SecretBytes?
}

/// A runtime on this machine's loopback that was verified (it answered as the runtime it
/// claims to be), with the models it serves. Machine-local: never synced between devices.
public struct LocalEndpoint: Sendable, Equatable {
    /// Base URL, e.g. `http://127.0.0.1:11434`.
    public var url: String
    /// Model tags or ids the runtime listed.
    public var models: [String]
    /// What the probe learnt each model can do, by tag; a tag not in it is unknown (the probe
    /// of plain OpenAI-compatible servers and vLLM learns no capabilities): no tools, no sight.
    public var capabilities: [String: Set<ModelCapability>]
    public init(url: String, models: [String], capabilities: [String: Set<ModelCapability>] = [:]) {
        self.url = url; self.models = models; self.capabilities = capabilities
    }
}

/// What the on-device brain can do with a local model beyond text: `.tools`, `.vision`.
public protocol OnDeviceAbilities: Sendable {
    func capabilities(_ model: LocalModel) -> Set<ModelCapability>
}

/// The same answer for every local model (tests, and routers built without a model resolver;
/// the guest uses `ResolvedOnDeviceAbilities`). The default, `[.tools]`: the on-device engine
/// renders tools with the model's chat template and the agent loop parses calls written as text
/// (the old rule sent every request with tools there); without a projector it cannot see.
public struct FixedOnDeviceAbilities: OnDeviceAbilities {
    public let abilities: Set<ModelCapability>
    public init(_ abilities: Set<ModelCapability> = [.tools]) { self.abilities = abilities }
    public func capabilities(_ model: LocalModel) -> Set<ModelCapability> { abilities }
}

public protocol LocalEndpointSource: Sendable {
    /// The verified endpoint, nil when there is none.
    func verifiedEndpoint() throws -> LocalEndpoint?
}

/// The own account's Homebase adverts (the `OwnAdvertStore` in the product).
public protocol OwnAdvertSource: Sendable {
    /// The last accepted advert with its receipt time, nil when none was ever accepted.
    func latestOwnAdvert() throws -> ReceivedAdvert?
}

/// Other accounts' Homebases this device was invited to (the `JoinedHomebaseStore`).
public protocol JoinedHomebaseSource: Sendable {
    func joinedHomebase(_ hostKey: PublicKey) throws -> JoinedHomebase?
}

/// Whether this process is the Homebase itself.
public protocol HostRole: Sendable {
    /// This process's host key when it is the Homebase, nil on a guest.
    var homebaseHostKey: PublicKey? { get }
}

/// The receiver's wall clock in Unix milliseconds: every freshness is judged by it.
public protocol WallClock: Sendable {
    func nowMs() -> Int64
}

extension LocalEndpoint {
    /// True when the URL's host is a loopback address (127.0.0.0/8, ::1, localhost): the only
    /// endpoints the router trusts as "this machine".
    public var isLoopback: Bool {
        guard let schemeEnd = url.range(of: "://") else { return false }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { return false }
        var authority = url[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if authority.contains("@") { return false }  // userinfo: refuse rather than parse
        let host: Substring
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return false }
            host = authority[authority.index(after: authority.startIndex)..<close]
        } else {
            if let colon = authority.firstIndex(of: ":") { authority = authority[..<colon] }
            host = authority
        }
        switch host.lowercased() {
        case "localhost", "::1": return true
        default:
            let parts = host.split(separator: ".", omittingEmptySubsequences: false)
            return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
        }
    }
}
