// The OpenAI and Ollama brains: thin configurations of `OpenAIChatClient`, never a second client.

/// How a cloud brain is reached: its base URL, its keys (read for every request: a key rotated
/// in the key ring is used from the next call on), the timeouts and the HTTP client.
public struct CloudEndpoint: Sendable {
    public let baseURL: String
    public let keys: APIKeySource
    public let timeouts: HTTPTimeouts
    let http: HTTPStreamClient
}

/// A cloud brain (OpenAI, Anthropic): a `CloudEndpoint`, at `defaultBaseURL` unless told.
public protocol CloudProvider: ChatProvider {
    static var defaultBaseURL: String { get }
    var endpoint: CloudEndpoint { get }
    init(endpoint: CloudEndpoint)
}

extension CloudProvider {
    /// `baseURL` is configurable for tests and compatible services.
    public init(keys: APIKeySource, baseURL: String = Self.defaultBaseURL,
                timeouts: HTTPTimeouts = HTTPTimeouts(), http: HTTPStreamClient = HTTPStreamClient()) {
        self.init(endpoint: CloudEndpoint(baseURL: baseURL, keys: keys, timeouts: timeouts, http: http))
    }

    public var baseURL: String { endpoint.baseURL }
}

/// OpenAI's Chat Completions (`https://api.openai.com/v1/chat/completions`, SSE with
/// `stream_options.include_usage`). The key is read from `keys` for every request.
public struct OpenAIProvider: CloudProvider {
    public static let defaultBaseURL = "https://api.openai.com"
    public let endpoint: CloudEndpoint

    public init(endpoint: CloudEndpoint) { self.endpoint = endpoint }

    public var brain: BrainKind { .openAI }

    public func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error> {
        let key: String
        do { key = try endpoint.keys.key() } catch { return .failing(error) }
        let config = OpenAIChatClient.Configuration(baseURL: endpoint.baseURL, apiKey: key, timeouts: endpoint.timeouts,
                                                    brain: .openAI)
        return OpenAIChatClient(config, http: endpoint.http).stream(request)
    }
}

/// A runtime on this machine (Ollama's `/v1`, llama-server, vLLM): the OpenAI client with the
/// runtime's URL, the selected model tag and a dummy key (Ollama ignores it; some proxies want one).
public struct OllamaProvider: ChatProvider {
    /// Sent as the Bearer key: Ollama accepts any, and the official clients send "ollama".
    public static let dummyKey = "ollama"

    public let baseURL: String
    /// The model tag every request is sent with (the user's selection).
    public let model: String
    private let client: OpenAIChatClient

    public init(baseURL: String, model: String, timeouts: HTTPTimeouts = HTTPTimeouts(),
                http: HTTPStreamClient = HTTPStreamClient()) {
        self.baseURL = baseURL; self.model = model
        client = OpenAIChatClient(.init(baseURL: baseURL, apiKey: Self.dummyKey, timeouts: timeouts,
                                        brain: .localEndpoint), http: http)
    }

    public var brain: BrainKind { .localEndpoint }

    public func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error> {
        var r = request
        r.model = model
        return client.stream(r)
    }
}

extension AsyncThrowingStream where Element == ChatEvent, Failure == Error {
    /// A stream that fails at once (a provider that cannot start still answers with a stream).
    static func failing(_ error: Error) -> AsyncThrowingStream<ChatEvent, Error> {
        AsyncThrowingStream { $0.finish(throwing: error) }
    }
}
