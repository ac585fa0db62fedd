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
public final class LocalAPIServer: @unchecked Sendable {
    /// Reported by `GET /api/version` (clients only check that one is there).
    public static let ollamaVersion = "0.6.0"

    public let configuration: ServeConfiguration
    private let router: AnswerRouter
    private let models: ModelLister
    private var server: HTTPServer!

    /// The bound port (useful with port 0).
    public var port: UInt16 { server.port }

    /// Validates the configuration (a non-loopback bind needs `allowRemote` and a token) and
    /// binds. Loop thread only.
    public init(loop: EventLoop, configuration: ServeConfiguration, router: @escaping AnswerRouter,
                models: @escaping ModelLister, http: HTTPServer.Configuration = HTTPServer.Configuration()) throws {
        try configuration.validate()
        self.configuration = configuration
        self.router = router
        self.models = models
        var h = http
        h.listener.host = configuration.host
        h.listener.port = configuration.port
        server = try HTTPServer(loop: loop, configuration: h) { [unowned self] request, responder in
            self.handle(request, responder)
        }
    }

    /// Stops accepting.
    public func close() { server.close() }

    private func handle(_ request: HTTPRequest, _ responder: HTTPResponder) {
        if let token = configuration.token, !token.isEmpty {
            let presented = request.headers["authorization"] ?? ""
            guard presented.hasPrefix("Bearer "), tokensMatch(String(presented.dropFirst(7)), token) else {
                let h = HTTPHeaders([("Content-Type", "application/json"), ("WWW-Authenticate", "Bearer")])
                responder.respond(HTTPResponse(status: HTTPStatus(code: 401, reason: "Unauthorized"), headers: h,
                                               body: OpenAIAnswerEncoder.errorBody("missing or wrong bearer token", type: "invalid_request_error")))
                return
            }
        }
        let route = (request.method, String(request.path))
        switch route {
        case ("POST", "/v1/chat/completions"):
            chat(request, responder) { body throws(LocalAPIError) in try OpenAIRequestReader.read(body) } encoder: { r, homebase in
                OpenAIAnswerEncoder(model: r.chat.model, includeUsage: r.includeUsage, homebase: homebase)
            }
        case ("POST", "/api/chat"):
            chat(request, responder) { body throws(LocalAPIError) in try OllamaRequestReader.read(body) } encoder: { r, homebase in
                OllamaAnswerEncoder(model: r.chat.model, homebase: homebase)
            }
        case ("GET", "/v1/models"), ("GET", "/api/tags"):
            let models = self.models
            let ollama = route.1 == "/api/tags"
            Task {
                let names = await models()
                responder.respond(json(.ok, ollama ? ModelLists.ollama(names) : ModelLists.openAI(names)))
            }
        case ("GET", "/api/version"):
            responder.respond(json(.ok, JSONReading.bytes(["version": Self.ollamaVersion])))
        case ("GET", "/"), ("HEAD", "/"):
            responder.respond(HTTPResponse(status: .ok, text: "Homebase guest is running\n"))
        case (_, "/v1/chat/completions"), (_, "/api/chat"), (_, "/v1/models"), (_, "/api/tags"):
            responder.respond(json(.methodNotAllowed, OpenAIAnswerEncoder.errorBody("method not allowed", type: "invalid_request_error")))
        default:
            responder.respond(json(.notFound, OpenAIAnswerEncoder.errorBody("no such endpoint", type: "invalid_request_error")))
        }
    }

    private func chat<E: AnswerEncoding>(_ request: HTTPRequest, _ responder: HTTPResponder,
                                         read: ([UInt8]) throws(LocalAPIError) -> APIChatRequest,
                                         encoder: @escaping @Sendable (APIChatRequest, [String: String]) -> E) {
        let api: APIChatRequest
        do {
            api = try read(request.body)
        } catch {
            responder.respond(json(.badRequest, E.errorBody(error.description)))
            return
        }
        let router = self.router
        Task {
            let route = await router(api.chat)
            AnswerRunner.run(api, route: route, encoder: encoder(api, route.homebaseObject), responder: responder)
        }
    }
}

private func json(_ status: HTTPStatus, _ body: [UInt8]) -> HTTPResponse {
    HTTPResponse(status: status, headers: HTTPHeaders([("Content-Type", "application/json")]), body: body)
}
