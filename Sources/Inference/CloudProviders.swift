// The OpenAI and Ollama brains: thin configurations of `OpenAIChatClient`, never a second client.

/// OpenAI's Chat Completions (`https://api.openai.com/v1/chat/completions`, SSE with
/// `stream_options.include_usage`). The key is read from `keys` for every request.
public struct OpenAIProvider: ChatProvider {
    public static let defaultBaseURL = "https://api.openai.com"

    public let baseURL: String
    public let keys: APIKeySource
    public let timeouts: HTTPTimeouts
    private let http: HTTPStreamClient

    /// `baseURL` is configurable for tests and OpenAI-compatible services.
    public init(keys: APIKeySource, baseURL: String = OpenAIProvider.defaultBaseURL,
                timeouts: HTTPTimeouts = HTTPTimeouts(), http: HTTPStreamClient = HTTPStreamClient()) {
        self.keys = keys; self.baseURL = baseURL; self.timeouts = timeouts; self.http = http
    }

    public var brain: BrainKind { .openAI }

    public func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error> {
        let key: String
        do { key = try keys.key() } catch { return .failing(error) }
        let config = OpenAIChatClient.Configuration(baseURL: baseURL, apiKey: key, timeouts: timeouts, brain: .openAI)
        return OpenAIChatClient(config, http: http).stream(request)
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
