/// Anthropic's Messages API, streamed: `POST {base}/v1/messages` with `x-api-key` and
/// `anthropic-version: 2023-06-01`. Ends only on `message_stop`: a stream cut before it is
/// `.interrupted`; an `error` event after the 200 is `.inBand`, never a complete answer.
public struct AnthropicProvider: CloudProvider {
    public static let defaultBaseURL = "https://api.anthropic.com"
    /// The API version the request and event shapes here were written against.
    public static let apiVersion = "2023-06-01"
    public let endpoint: CloudEndpoint

    public init(endpoint: CloudEndpoint) { self.endpoint = endpoint }

    public var brain: BrainKind { .anthropic }

    /// The headers of every Anthropic request (the zero-token key test uses them too).
    public static func headers(key: String) -> [HTTPHeader] {
        [HTTPHeader("x-api-key", key), HTTPHeader("anthropic-version", apiVersion)]
    }

    public func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error> {
        chatEventStream { [self] out in try await run(request, out) }
    }

    private func run(_ request: ChatRequest, _ out: AsyncThrowingStream<ChatEvent, Error>.Continuation) async throws {
        let key = try endpoint.keys.key()
        let headers = [HTTPHeader("Content-Type", "application/json"), HTTPHeader("Accept", "text/event-stream")]
            + Self.headers(key: key)
        let response = try await endpoint.http.send(HTTPStreamRequest(
            method: "POST", url: EngineURL.apiRoot(endpoint.baseURL) + "/messages", headers: headers,
            body: try AnthropicRequestBody.encode(request), timeouts: endpoint.timeouts))
        do {
            try await response.requireSuccess()
        } catch InferenceError.http(404, let message) where message.lowercased().contains("model") {
            throw InferenceError.modelUnavailable(message)
        }
        var parser = SSEParser()
        var decoder = AnthropicStreamDecoder()
        var sse: [SSEEvent] = [], chat: [ChatEvent] = []
        for try await chunk in response.body {
            parser.parse(chunk, into: &sse)
            for event in sse {
                try decoder.handle(event, into: &chat)
                for e in chat { out.yield(e) }
                chat.removeAll(keepingCapacity: true)
            }
            sse.removeAll(keepingCapacity: true)
            if decoder.isDone { out.finish() }
        }
        guard decoder.isDone else { throw InferenceError.interrupted }
    }
}
