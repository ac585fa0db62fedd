import Foundation
import Inference
import Transport

/// `guest serve`'s HTTP endpoints, so Open WebUI, editors, curl and the OpenAI and Ollama client
/// libraries work unchanged:
///
///   POST /v1/chat/completions   OpenAI Chat Completions, SSE when `stream: true`
///   GET  /v1/models             OpenAI model list
///   POST /api/chat              Ollama chat, NDJSON unless `stream: false`
///   GET  /api/tags              Ollama model list
///   GET  /api/version, GET /    what Ollama clients probe first
///
/// Every answer goes through the `AnswerRouter` (one decision per request) and says which brain
/// answered: the `X-Homebase-Brain` header and a `homebase` object in the last chunk or the
/// final object. With a token configured, every request needs `Authorization: Bearer TOKEN`.
/// Before any of that, `RequestGate` refuses what a web page could send (Host, Origin, type).
public final class LocalAPIServer: @unchecked Sendable {
    /// Reported by `GET /api/version` (clients only check that one is there).
    public static let ollamaVersion = "0.6.0"
    /// The largest request body taken (a conversation with images as base64: a 5 MB photo is
    /// about 7 MB of JSON). A larger one is answered 413 with a JSON error naming this limit.
    public static let maxRequestBytes = 32 * 1024 * 1024

    /// The HTTP limits `guest serve` runs with: bodies up to `maxRequestBytes`, the head as Transport's.
    public static var httpConfiguration: HTTPServer.Configuration {
        var h = HTTPServer.Configuration()
        h.http.maxBodyBytes = maxRequestBytes
        return h
    }

    public let configuration: ServeConfiguration
    private let gate: RequestGate
    private let router: AnswerRouter
    private let models: ModelLister
    private var server: HTTPServer!

    /// The bound port (useful with port 0).
    public var port: UInt16 { server.port }

    /// Validates the configuration (a non-loopback bind needs `allowRemote` and a token) and
    /// binds. Loop thread only.
    public init(loop: EventLoop, configuration: ServeConfiguration, router: @escaping AnswerRouter,
                models: @escaping ModelLister, http: HTTPServer.Configuration = LocalAPIServer.httpConfiguration) throws {
        try configuration.validate()
        self.configuration = configuration
        gate = configuration.gate
        self.router = router
        self.models = models
        var h = http
        h.listener.host = configuration.host
        h.listener.port = configuration.port
        let limit = h.http.maxBodyBytes
        server = try HTTPServer(loop: loop, configuration: h, refusal: { status, head in
            Self.refusal(status, head, maxBody: limit)
        }) { [unowned self] request, responder in
            self.handle(request, responder)
        }
    }

    /// Stops accepting.
    public func close() { server.close() }

    /// A request the HTTP parser refused, in the endpoint's error shape; 413 names the limit.
    static func refusal(_ status: HTTPStatus, _ head: HTTPRequest?, maxBody: Int) -> HTTPResponse {
        let message = status.code == 413
            ? "the request body is larger than the \(Self.mebibytes(maxBody)) limit of guest serve (images count as their base64 text)"
            : "the request could not be read (HTTP \(status.code) \(status.reason))"
        let ollama = head?.path.hasPrefix("/api") ?? false
        let body = ollama ? OllamaAnswerEncoder.errorBody(message)
            : OpenAIAnswerEncoder.errorBody(message, type: "invalid_request_error")
        return json(status, body)
    }

    public static func mebibytes(_ n: Int) -> String {
        n % (1024 * 1024) == 0 ? "\(n / (1024 * 1024)) MiB" : "\(n) bytes"
    }

    private func handle(_ request: HTTPRequest, _ responder: HTTPResponder) {
        let ollama = request.path.hasPrefix("/api")
        func refuse(_ status: HTTPStatus, _ message: String, _ extra: HTTPHeaders = HTTPHeaders()) {
            let body = ollama ? OllamaAnswerEncoder.errorBody(message) : OpenAIAnswerEncoder.errorBody(message, type: "invalid_request_error")
            responder.respond(json(status, body, extra))
        }
        let cors: HTTPHeaders
        switch gate.check(request) {
        case .refuse(let status, let message): return refuse(status, message)
        case .preflight(let headers): return responder.respond(HTTPResponse(status: HTTPStatus(code: 204, reason: "No Content"), headers: headers))
        case .pass(let headers): cors = headers
        }
        if let token = configuration.token, !token.isEmpty {
            let presented = request.headers["authorization"] ?? ""
            guard presented.hasPrefix("Bearer "), tokensMatch(String(presented.dropFirst(7)), token) else {
                var h = cors
                h.add("WWW-Authenticate", "Bearer")
                return refuse(HTTPStatus(code: 401, reason: "Unauthorized"), "missing or wrong bearer token", h)
            }
        }
        let route = (request.method, String(request.path))
        switch route {
        case ("POST", "/v1/chat/completions"):
            chat(request, responder, cors) { body throws(LocalAPIError) in try OpenAIRequestReader.read(body) } encoder: { r, homebase in
                OpenAIAnswerEncoder(model: r.chat.model, includeUsage: r.includeUsage, homebase: homebase)
            }
        case ("POST", "/api/chat"):
            chat(request, responder, cors) { body throws(LocalAPIError) in try OllamaRequestReader.read(body) } encoder: { r, homebase in
                OllamaAnswerEncoder(model: r.chat.model, homebase: homebase)
            }
        case ("GET", "/v1/models"), ("GET", "/api/tags"):
            let models = self.models
            Task {
                let names = await models()
                responder.respond(json(.ok, ollama ? ModelLists.ollama(names) : ModelLists.openAI(names), cors))
            }
        case ("GET", "/api/version"):
            responder.respond(json(.ok, JSONReading.bytes(["version": Self.ollamaVersion]), cors))
        case ("GET", "/"), ("HEAD", "/"):
            var h = cors
            h.add("Content-Type", "text/plain; charset=utf-8")
            responder.respond(HTTPResponse(status: .ok, headers: h, body: Array("Homebase guest is running\n".utf8)))
        case (_, "/v1/chat/completions"), (_, "/api/chat"), (_, "/v1/models"), (_, "/api/tags"):
            refuse(.methodNotAllowed, "method not allowed", cors)
        default:
            refuse(.notFound, "no such endpoint", cors)
        }
    }

    private func chat<E: AnswerEncoding>(_ request: HTTPRequest, _ responder: HTTPResponder, _ cors: HTTPHeaders,
                                         read: ([UInt8]) throws(LocalAPIError) -> APIChatRequest,
                                         encoder: @escaping @Sendable (APIChatRequest, [String: String]) -> E) {
        let api: APIChatRequest
        do {
            api = try read(request.body)
        } catch {
            responder.respond(json(.badRequest, E.errorBody(error.description), cors))
            return
        }
        let router = self.router
        Task {
            let route = await router(api.chat)
            AnswerRunner.run(api, route: route, encoder: encoder(api, route.homebaseObject), headers: cors, responder: responder)
        }
    }
}

private func json(_ status: HTTPStatus, _ body: [UInt8], _ extra: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
    var h = extra
    h.add("Content-Type", "application/json")
    return HTTPResponse(status: status, headers: h, body: body)
}
