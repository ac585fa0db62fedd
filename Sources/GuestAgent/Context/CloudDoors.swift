import Inference
import Routing

/// Where the cloud APIs are: the real services by default; tests and compatible services (a
/// proxy, an OpenAI-compatible gateway) set their own roots.
public struct CloudURLs: Sendable, Equatable {
    public var openAI: String
    public var anthropic: String

    /// Environment variables that override the configured URLs.
    public static let openAIVariable = "HOMEBASE_OPENAI_BASE_URL"
    public static let anthropicVariable = "HOMEBASE_ANTHROPIC_BASE_URL"

    public init(openAI: String = OpenAIProvider.defaultBaseURL, anthropic: String = AnthropicProvider.defaultBaseURL) {
        self.openAI = openAI; self.anthropic = anthropic
    }

    /// The environment over the configured values (`openai_base_url`, `anthropic_base_url` in the
    /// config file) over the defaults. An empty value counts as unset.
    public static func resolve(environment: [String: String], openAI: String? = nil, anthropic: String? = nil) -> CloudURLs {
        func pick(_ variable: String, _ configured: String?, _ fallback: String) -> String {
            for v in [environment[variable], configured] { if let v, !v.isEmpty { return v } }
            return fallback
        }
        return CloudURLs(openAI: pick(openAIVariable, openAI, OpenAIProvider.defaultBaseURL),
                         anthropic: pick(anthropicVariable, anthropic, AnthropicProvider.defaultBaseURL))
    }
}

/// The cloud brains of the product: `OpenAIProvider` and `AnthropicProvider` reading their key
/// from the slot `CloudKeyStore` mirrors the ring's first key into (`<data-dir>/keys/openai`,
/// `.../anthropic`) for every request, so a key moved or removed with `guest keys` takes
/// effect on the next call. The router only proved a key was on file; a key gone by the time of
/// the request fails the stream (`unreachable`) and the runner answers on-device.
public struct CloudDoors: Sendable {
    public let keysDirectory: String
    public let urls: CloudURLs
    public let timeouts: HTTPTimeouts

    public init(keysDirectory: String, urls: CloudURLs = CloudURLs(), timeouts: HTTPTimeouts = HTTPTimeouts()) {
        self.keysDirectory = keysDirectory; self.urls = urls; self.timeouts = timeouts
    }

    public func openAI() -> any ChatProvider {
        OpenAIProvider(keys: slot(.openAI), baseURL: urls.openAI, timeouts: timeouts)
    }

    public func anthropic() -> any ChatProvider {
        AnthropicProvider(keys: slot(.anthropic), baseURL: urls.anthropic, timeouts: timeouts)
    }

    /// The same file `FileKeyRing` checks for presence.
    func slot(_ cloud: Cloud) -> APIKeySource { .file(keysDirectory + "/" + FileKeyRing.fileName(cloud)) }
}
