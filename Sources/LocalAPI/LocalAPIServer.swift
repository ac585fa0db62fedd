import Foundation
import Inference
import Transport

/// `guest serve`'s HTTP endpoints, so Open WebUI, editors, Codex, Claude Code, curl and the
/// OpenAI, Anthropic and Ollama client libraries work unchanged:
///
///   POST /v1/chat/completions          OpenAI Chat Completions, SSE when `stream: true`
///   POST /v1/responses                 OpenAI Responses (`previous_response_id`: `ResponseMemory`)
///   GET|DELETE /v1/responses/{id}, GET .../input_items   stored responses (`ResponsesRetrieval`)
///   POST /v1/completions               OpenAI legacy text completion (`TextCompletion`)
///   GET  /v1/models, /v1/models/{id}   OpenAI model list and one model
///   POST /v1/messages                  Anthropic Messages, SSE when `stream: true`
///   POST /v1/messages/count_tokens     an estimate (`TokenEstimate`)
///   POST /api/chat, /api/generate      Ollama chat and generate, NDJSON unless `stream: false`
///   GET  /api/tags, /api/ps; POST /api/show; GET /api/version; GET|HEAD /   Ollama probes
///   POST /v1/embeddings, /api/embed, /api/embeddings   vectors from the `EmbeddingRouter`
///   /api/pull, push, create, copy, delete   refused, naming the guest command that does it
///   GET / (a browser), /homebase/status, /homebase/events   the page and its status (`PageRoutes`)
///
/// Every answer goes through the `AnswerRouter` (one decision per request) and says which brain
/// answered: the `X-Homebase-Brain` header and a `homebase` object in the last chunk or the
/// final object. Probes answer from the `ModelLister` alone (what the guest knows already),
/// never waiting on a brain or the relay. With a token configured, every request needs it as
/// `Authorization: Bearer TOKEN` or (Anthropic's clients) `x-api-key: TOKEN`.
/// Before any of that, `RequestGate` refuses what a web page could send (Host, Origin, type).
public final class LocalAPIServer: @unchecked Sendable {
    /// Reported by `GET /api/version`: recent enough that clients checking for newer Ollama
    /// features (tools, `/api/show` capabilities, thinking) use them.
    public static let ollamaVersion = "0.14.0"
    /// What Ollama answers at `/`, and so what clients probing it look for.
    static let rootText = "Ollama is running"
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
    private let embedder: EmbeddingRouter?
    private let memory: ResponseMemory
    /// The page at `/` and its status endpoints (`PageRoutes`); nil: Ollama's probe text only.
    private let page: PageSource?
    private var server: HTTPServer!

    /// The bound port (useful with port 0).
    public var port: UInt16 { server.port }

    /// Validates the configuration (a non-loopback bind needs `allowRemote` and a token) and
    /// binds. Loop thread only.
    public init(loop: EventLoop, configuration: ServeConfiguration, router: @escaping AnswerRouter,
                models: @escaping ModelLister, embedder: EmbeddingRouter? = nil, page: PageSource? = nil,
                http: HTTPServer.Configuration = LocalAPIServer.httpConfiguration) throws {
        try configuration.validate()
        self.configuration = configuration
        gate = configuration.gate
        self.router = router
        self.models = models
        self.embedder = embedder
        self.page = page
        memory = ResponseMemory(maxResponses: configuration.storedResponses)
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
        return json(status, errorBody(dialect(head.map { Substring($0.path) } ?? "/v1"), status, message))
    }

    public static func mebibytes(_ n: Int) -> String {
        n % (1024 * 1024) == 0 ? "\(n / (1024 * 1024)) MiB" : "\(n) bytes"
    }

    /// Which API's error shape a path answers in.
    enum Dialect { case openAI, ollama, anthropic }
    static func dialect(_ path: Substring) -> Dialect {
        if path.hasPrefix("/api") { return .ollama }
        if path == "/v1/messages" || path.hasPrefix("/v1/messages/") { return .anthropic }
        return .openAI
    }

    static func errorBody(_ dialect: Dialect, _ status: HTTPStatus, _ message: String) -> [UInt8] {
        switch dialect {
        case .ollama: return OllamaAnswerEncoder.errorBody(message)
        case .openAI: return OpenAIAnswerEncoder.errorBody(message, type: status.code >= 500 ? "server_error" : "invalid_request_error")
        case .anthropic:
            let type = switch status.code {
            case 401: "authentication_error"
            case 403: "permission_error"
            case 404: "not_found_error"
            case 400..<500: "invalid_request_error"
            default: "api_error"
            }
            return JSONReading.bytes(AnthropicMessagesEncoder.error(message, type: type))
        }
    }

    private func handle(_ request: HTTPRequest, _ responder: HTTPResponder) {
        let dialect = Self.dialect(request.path)
        func refuse(_ status: HTTPStatus, _ message: String, _ extra: HTTPHeaders = HTTPHeaders()) {
            responder.respond(json(status, Self.errorBody(dialect, status, message), extra))
        }
        let cors: HTTPHeaders
        switch gate.check(request) {
        case .refuse(let status, let message): return refuse(status, message)
        case .preflight(let headers): return responder.respond(HTTPResponse(status: HTTPStatus(code: 204, reason: "No Content"), headers: headers))
        case .pass(let headers): cors = headers
        }
        if let token = configuration.token, !token.isEmpty {
            let bearer = request.headers["authorization"] ?? ""
            let key = request.headers["x-api-key"]
            let ok = bearer.hasPrefix("Bearer ") && tokensMatch(String(bearer.dropFirst(7)), token)
                || key.map { tokensMatch($0, token) } == true
            guard ok else {
                var h = cors
                h.add("WWW-Authenticate", "Bearer")
                return refuse(HTTPStatus(code: 401, reason: "Unauthorized"), "missing or wrong token "
                              + "(send it as Authorization: Bearer TOKEN or x-api-key: TOKEN)", h)
            }
        }
        if let page, PageRoutes.handle(request, responder, cors, page: page) { return }
        let path = String(request.path)
        let models = self.models
        /// A probe answered from the model list.
        func fromList(_ answer: @escaping @Sendable ([ListedModel]) -> HTTPResponse) {
            Task { responder.respond(answer(await models())) }
        }
        switch (request.method, path) {
        case ("POST", "/v1/chat/completions"):
            read(request, responder, cors, dialect) { body throws(LocalAPIError) in try OpenAIRequestReader.read(body) } encoder: { r, homebase in
                OpenAIAnswerEncoder(model: r.chat.model, includeUsage: r.includeUsage, homebase: homebase)
            }
        case ("POST", "/api/chat"):
            read(request, responder, cors, dialect) { body throws(LocalAPIError) in try OllamaRequestReader.read(body) } encoder: { r, homebase in
                OllamaAnswerEncoder(model: r.chat.model, homebase: homebase)
            }
        case ("POST", "/v1/messages"):
            read(request, responder, cors, dialect) { body throws(LocalAPIError) in try AnthropicMessagesReader.read(body) } encoder: { r, homebase in
                AnthropicMessagesEncoder(model: r.chat.model, homebase: homebase)
            }
        case ("POST", "/v1/messages/count_tokens"):
            do {
                let r = try AnthropicMessagesReader.read(request.body, requireMaxTokens: false)
                responder.respond(json(.ok, JSONReading.bytes(["input_tokens": TokenEstimate.count(r.chat),
                                                               "homebase": ["estimate": "utf8-bytes/\(TokenEstimate.bytesPerToken)"]]), cors))
            } catch { refuse(.badRequest, error.description, cors) }
        case ("POST", "/v1/responses"):
            responses(request, responder, cors)
        case (_, _) where path.hasPrefix("/v1/responses/"):
            guard let (status, body) = ResponsesRetrieval.answer(request.method, request.target, memory: memory) else {
                return refuse(.notFound, "no such endpoint: guest serve --help lists them", cors)
            }
            responder.respond(json(status, body, cors))
        case ("POST", "/v1/completions"):
            do {
                let (api, echo) = try CompletionsReader.read(request.body)
                answer(api, responder, cors) { r, homebase in
                    CompletionsEncoder(model: r.chat.model, includeUsage: r.includeUsage, echo: echo, homebase: homebase)
                }
            } catch { refuse(.badRequest, error.description, cors) }
        case ("POST", "/api/generate"):
            do {
                let (api, model) = try OllamaGenerateReader.read(request.body)
                guard let api else { return responder.respond(json(.ok, OllamaGenerateEncoder.loaded(model: model), cors)) }
                answer(api, responder, cors) { r, homebase in OllamaGenerateEncoder(model: r.chat.model, homebase: homebase) }
            } catch { refuse(.badRequest, error.description, cors) }
        case ("POST", "/v1/embeddings"), ("POST", "/api/embed"), ("POST", "/api/embeddings"):
            embeddings(request, responder, cors, dialect)
        case ("GET", "/v1/models"), ("GET", "/api/tags"):
            fromList { json(.ok, dialect == .ollama ? ModelLists.ollama($0) : ModelLists.openAI($0), cors) }
        case ("GET", _) where path.hasPrefix("/v1/models/"):
            let id = String(path.dropFirst("/v1/models/".count)).removingPercentEncoding ?? ""
            fromList { list in
                guard let body = OllamaProbes.openAIModel(id, models: list) else {
                    return json(.notFound, OpenAIAnswerEncoder.errorBody("The model '\(id.prefix(80))' does not exist", type: "invalid_request_error"), cors)
                }
                return json(.ok, body, cors)
            }
        case ("POST", "/api/show"):
            let body = request.body
            fromList { list in
                do {
                    guard let answer = try OllamaProbes.show(body, models: list) else {
                        return json(.notFound, OllamaAnswerEncoder.errorBody("model not found: guest serve lists the models it can answer with at /api/tags"), cors)
                    }
                    return json(.ok, answer, cors)
                } catch let error as LocalAPIError {
                    return json(.badRequest, OllamaAnswerEncoder.errorBody(error.description), cors)
                } catch { return json(.badRequest, OllamaAnswerEncoder.errorBody("bad request"), cors) }
            }
        case ("GET", "/api/ps"):
            fromList { json(.ok, OllamaProbes.ps($0), cors) }
        case ("GET", "/api/version"):
            responder.respond(json(.ok, JSONReading.bytes(["version": Self.ollamaVersion]), cors))
        case ("GET", "/"), ("HEAD", "/"):
            // Ollama's words for clients that probe it; a browser gets the page (`PageRoutes`) when there is one.
            let browser = (request.headers["accept"] ?? "").contains("text/html")
            var h = cors
            h.add("Content-Type", "text/plain; charset=utf-8")
            let text = browser ? "Homebase guest is running: an Ollama-, OpenAI- and Anthropic-compatible API (guest serve --help)\n" : Self.rootText
            responder.respond(HTTPResponse(status: .ok, headers: h, body: request.method == "HEAD" ? [] : Array(text.utf8)))
        case (_, "/api/pull"), (_, "/api/push"), (_, "/api/create"), (_, "/api/copy"), (_, "/api/delete"), (_, "/api/blobs"):
            refuse(HTTPStatus(code: 501, reason: "Not Implemented"), Self.managementAdvice(path), cors)
        case (_, "/v1/chat/completions"), (_, "/api/chat"), (_, "/v1/models"), (_, "/api/tags"), (_, "/v1/messages"),
             (_, "/v1/messages/count_tokens"), (_, "/v1/responses"), (_, "/v1/completions"), (_, "/api/generate"),
             (_, "/api/show"), (_, "/api/ps"), (_, "/api/version"), (_, "/"), (_, "/v1/embeddings"), (_, "/api/embed"),
             (_, "/api/embeddings"):
            refuse(.methodNotAllowed, "method not allowed", cors)
        default:
            refuse(.notFound, "no such endpoint: guest serve --help lists them", cors)
        }
    }

    /// What to run instead of Ollama's model management, which `guest serve` does not do.
    static func managementAdvice(_ path: String) -> String {
        let verb = path.dropFirst("/api/".count)
        let command = switch verb {
        case "pull": "guest models pull NAME (on-device models; a Homebase's models are managed on the Homebase)"
        case "delete": "guest models delete ID"
        default: "guest models (browse, pull, use, delete)"
        }
        return "guest serve does not \(verb) models: run \(command)"
    }

    /// The three embeddings doors: vectors of the model named, or a clear error (404 when no
    /// brain here has the model, 501 when the route cannot make them, 502 when the brain chosen
    /// failed), never vectors of another model.
    private func embeddings(_ request: HTTPRequest, _ responder: HTTPResponder, _ cors: HTTPHeaders, _ dialect: Dialect) {
        let path = request.path
        let read: (request: EmbeddingRequest, base64: Bool)
        do { read = try EmbeddingsReader.read(request.body, field: path == "/api/embeddings" ? "prompt" : "input") } catch {
            return responder.respond(json(.badRequest, Self.errorBody(dialect, .badRequest, error.description), cors))
        }
        guard let embedder else {
            let status = HTTPStatus(code: 501, reason: "Not Implemented")
            return responder.respond(json(status, Self.errorBody(dialect, status, "this guest serve has no embedding engine"), cors))
        }
        Task {
            switch await embedder(read.request) {
            case .success(let a):
                var h = cors
                h.add(AnswerRunner.brainHeader, a.brain.rawValue)
                let homebase = ["brain": a.brain.rawValue]
                let body = switch path {
                case "/v1/embeddings": EmbeddingsWriter.openAI(a, base64: read.base64, homebase: homebase)
                case "/api/embed": EmbeddingsWriter.ollama(a, homebase: homebase)
                default: EmbeddingsWriter.ollamaLegacy(a)
                }
                responder.respond(json(.ok, body, h))
            case .failure(let f):
                let status = switch f {
                case .unavailable: HTTPStatus(code: 501, reason: "Not Implemented")
                case .unknownModel: HTTPStatus(code: 404, reason: "Not Found")
                case .failed: HTTPStatus(code: 502, reason: "Bad Gateway")
                }
                responder.respond(json(status, Self.errorBody(dialect, status, f.description), cors))
            }
        }
    }

    /// `POST /v1/responses`: the stored conversation of `previous_response_id` (404 when it is
    /// unknown or forgotten) before the input, and `instructions` (never carried over) first.
    private func responses(_ request: HTTPRequest, _ responder: HTTPResponder, _ cors: HTTPHeaders) {
        let r: ResponsesRequest
        do { r = try ResponsesReader.read(request.body) } catch {
            return responder.respond(json(.badRequest, OpenAIAnswerEncoder.errorBody(error.description, type: "invalid_request_error"), cors))
        }
        var conversation = r.input
        if let previous = r.previousResponseID {
            guard let history = memory.conversation(previous) else {
                let body = JSONReading.bytes(["error": ["message": "Previous response with id '\(previous.prefix(80))' not found "
                                                        + "(guest serve keeps the last \(memory.maxResponses) stored responses, in memory)",
                                                        "type": "invalid_request_error", "param": "previous_response_id",
                                                        "code": "previous_response_not_found"] as JSONObject])
                return responder.respond(json(.notFound, body, cors))
            }
            conversation = history + r.input
        }
        var api = r.api
        api.chat.messages = (r.instructions.map { [ChatMessage(role: .system, content: $0)] } ?? []) + conversation
        let memory = self.memory, kept = conversation
        answer(api, responder, cors) { _, homebase in
            ResponsesEncoder(request: r, conversation: kept, memory: memory, homebase: homebase)
        }
    }

    private func read<E: AnswerEncoding>(_ request: HTTPRequest, _ responder: HTTPResponder, _ cors: HTTPHeaders, _ dialect: Dialect,
                                         read: ([UInt8]) throws(LocalAPIError) -> APIChatRequest,
                                         encoder: @escaping @Sendable (APIChatRequest, [String: String]) -> E) {
        let api: APIChatRequest
        do {
            api = try read(request.body)
        } catch {
            responder.respond(json(.badRequest, Self.errorBody(dialect, .badRequest, error.description), cors))
            return
        }
        answer(api, responder, cors, encoder: encoder)
    }

    private func answer<E: AnswerEncoding>(_ api: APIChatRequest, _ responder: HTTPResponder, _ cors: HTTPHeaders,
                                           encoder: @escaping @Sendable (APIChatRequest, [String: String]) -> E) {
        let router = self.router
        let keepAlive = configuration.keepAliveInterval
        Task {
            let route = await router(api.chat)
            AnswerRunner.run(api, route: route, encoder: encoder(api, route.homebaseObject), headers: cors,
                             keepAlive: keepAlive, responder: responder)
        }
    }
}

private func json(_ status: HTTPStatus, _ body: [UInt8], _ extra: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
    var h = extra
    h.add("Content-Type", "application/json")
    return HTTPResponse(status: status, headers: h, body: body)
}
