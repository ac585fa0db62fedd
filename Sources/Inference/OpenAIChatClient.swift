/// A `ChatProvider` for any OpenAI-compatible server: llama.cpp `llama-server`, vLLM, Ollama's
/// `/v1`, OpenAI itself. Streams `POST {base}/chat/completions` and ends only on `data: [DONE]`:
/// a stream that stops before it is `.interrupted`, never a complete answer.
public struct OpenAIChatClient: ChatProvider {
    public struct Configuration: Sendable {
        /// Server root (`http://127.0.0.1:8080`) or API root (`https://api.openai.com/v1`):
        /// `/v1` is appended when the URL does not already end with it.
        public var baseURL: String
        /// Sent as `Authorization: Bearer KEY` when set. Never logged.
        public var apiKey: String?
        /// Added to every request (e.g. `OpenAI-Organization`).
        public var extraHeaders: [HTTPHeader]
        public var timeouts: HTTPTimeouts
        /// How the router labels this provider.
        public var brain: BrainKind

        public init(baseURL: String, apiKey: String? = nil, extraHeaders: [HTTPHeader] = [],
                    timeouts: HTTPTimeouts = HTTPTimeouts(), brain: BrainKind = .localEndpoint) {
            self.baseURL = baseURL; self.apiKey = apiKey; self.extraHeaders = extraHeaders
            self.timeouts = timeouts; self.brain = brain
        }

        /// The URL that ends in `/v1`, without a trailing slash.
        var apiRoot: String { EngineURL.apiRoot(baseURL) }
    }

    public let configuration: Configuration
    private let http: HTTPStreamClient

    public init(_ configuration: Configuration, http: HTTPStreamClient = HTTPStreamClient()) {
        self.configuration = configuration
        self.http = http
    }

    public var brain: BrainKind { configuration.brain }

    public func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error> {
        chatEventStream { [configuration, http] out in try await Self.run(request, configuration, http, out) }
    }

    private static func run(_ request: ChatRequest, _ config: Configuration, _ http: HTTPStreamClient,
                            _ out: AsyncThrowingStream<ChatEvent, Error>.Continuation) async throws {
        var headers = [HTTPHeader("Content-Type", "application/json"), HTTPHeader("Accept", "text/event-stream")]
        if let key = config.apiKey, !key.isEmpty { headers.append(HTTPHeader("Authorization", "Bearer \(key)")) }
        headers += config.extraHeaders
        let body = try OpenAIRequestBody.encode(request)
        let response = try await http.send(HTTPStreamRequest(
            method: "POST", url: config.apiRoot + "/chat/completions", headers: headers, body: body,
            timeouts: config.timeouts))
        do {
            try await response.requireSuccess()
        } catch InferenceError.http(404, let message) where message.lowercased().contains("model") {
            throw InferenceError.modelUnavailable(message)
        }

        var parser = SSEParser(reportsStrayLines: true)
        var decoder = OpenAIStreamDecoder()
        var sse: [SSEEvent] = [], chat: [ChatEvent] = []
        var echo = PrefillEcho(request.continuation)  // llama-server repeats the prefill first
        for try await chunk in response.body {
            parser.parse(chunk, into: &sse)
            for event in sse {
                try decoder.handle(event, into: &chat)
                for e in chat {
                    if case .text(let t) = e {
                        let shown = echo.pass(t)
                        if !shown.isEmpty { out.yield(.text(shown)) }
                        continue
                    }
                    let held = echo.flush()
                    if !held.isEmpty { out.yield(.text(held)) }
                    out.yield(e)
                }
                chat.removeAll(keepingCapacity: true)
            }
            sse.removeAll(keepingCapacity: true)
            // The answer is complete: release the reader now; the loop drains the last bytes so
            // the connection can be reused.
            if decoder.isDone { out.finish() }
        }
        guard decoder.isDone else { throw InferenceError.interrupted }
    }
}

/// Engine URL spellings.
enum EngineURL {
    /// Without trailing slashes.
    static func trimmed(_ url: String) -> String {
        var s = Substring(url)
        while s.hasSuffix("/") { s.removeLast() }
        return String(s)
    }

    /// `…/v1`, appended unless already there.
    static func apiRoot(_ url: String) -> String {
        let t = trimmed(url)
        return t.hasSuffix("/v1") ? t : t + "/v1"
    }

    /// For messages: the URL without any `user:password@` part.
    static func redacted(_ url: String) -> String {
        guard let scheme = url.range(of: "://"), let at = url[scheme.upperBound...].firstIndex(of: "@") else { return url }
        let hostEnd = url[scheme.upperBound...].firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? url.endIndex
        return at < hostEnd ? String(url[..<scheme.upperBound]) + String(url[url.index(after: at)...]) : url
    }

    /// The server root: the URL without a final `/v1`.
    static func serverRoot(_ url: String) -> String {
        let t = trimmed(url)
        return t.hasSuffix("/v1") ? String(t.dropLast(3)) : t
    }
}
