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
        stream(request, into: OpenAIStreamSink(prefill: request.continuation))
    }

    /// The body is parsed and decoded on curl's thread into `sink`'s queue; this task sends the
    /// request, reads a failure's status and waits for the transfer's end. A reader that gives up
    /// cancels it, which aborts the transfer (as cancelling a `send` or a body read does).
    func stream(_ request: ChatRequest, into sink: OpenAIStreamSink) -> AsyncThrowingStream<ChatEvent, Error> {
        let queue = sink.queue
        let task = Task { [configuration, http] in
            do {
                try await Self.run(request, configuration, http, sink)
            } catch {
                queue.finish(throwing: InferenceError.streamEnd(error))
            }
        }
        queue.onAbandon { task.cancel() }
        return queue.stream()
    }

    private static func run(_ request: ChatRequest, _ config: Configuration, _ http: HTTPStreamClient,
                            _ sink: OpenAIStreamSink) async throws {
        var headers = [HTTPHeader("Content-Type", "application/json"), HTTPHeader("Accept", "text/event-stream")]
        if let key = config.apiKey, !key.isEmpty { headers.append(HTTPHeader("Authorization", "Bearer \(key)")) }
        headers += config.extraHeaders
        let body = try OpenAIRequestBody.encode(request)
        let response = try await http.send(HTTPStreamRequest(
            method: "POST", url: config.apiRoot + "/chat/completions", headers: headers, body: body,
            timeouts: config.timeouts), into: sink)
        do {
            try await response.requireSuccess()
        } catch InferenceError.http(404, let message) where message.lowercased().contains("model") {
            throw InferenceError.modelUnavailable(message)
        }
        // The sink has the bytes; this ends (or throws) when the transfer does, after the drain.
        for try await _ in response.body {}
        // Without `[DONE]` the answer is cut short (after it, the queue is finished and this is moot).
        sink.queue.finish(throwing: InferenceError.interrupted)
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
