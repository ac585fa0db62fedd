import Synchronization
import Transport

/// What `guest serve`'s page reads: the guest's status as JSON (the same value `guest status
/// --json` prints, encoded by the guest) and how often the event stream pushes it.
public struct PageSource: Sendable {
    public var status: @Sendable () async -> [UInt8]
    /// Between two pushes of `/homebase/events` (tests: milliseconds).
    public var interval: Duration
    /// The page's changes (settings, keys, models), done by the guest with the same code its
    /// commands use; nil: the page is read-only (every action 404).
    public var act: PageActor?

    public init(interval: Duration = .seconds(2), act: PageActor? = nil, status: @escaping @Sendable () async -> [UInt8]) {
        self.status = status; self.interval = interval; self.act = act
    }
}

/// One action of the page: `GET|POST /homebase/act/NAME` with a JSON body. `progress` sends a
/// line of JSON at once (a pull's bytes so far): the answer is then NDJSON, the reply its last line.
public typealias PageActor = @Sendable (_ method: String, _ name: String, _ body: [UInt8],
                                        _ progress: @escaping @Sendable ([UInt8]) -> Void) async -> PageReply

/// What an action answers: an HTTP status and a JSON body (never a secret: keys come back masked).
public struct PageReply: Sendable, Equatable {
    public var status: Int
    public var body: [UInt8]
    public init(status: Int = 200, body: [UInt8]) { self.status = status; self.body = body }
}

/// The page at `/` and what it reads, behind the same `RequestGate` (and token) as the API:
///
///   GET /                    the page (a browser: `Accept: text/html`; others keep Ollama's probe text)
///   GET /homebase/page.js, /homebase/controls.js, /homebase/page.css   its scripts and style, compiled in
///                            (these need no token: the page asks for it)
///   GET /homebase/status     the status JSON
///   GET /homebase/events     server-sent events: `event: status` with the same JSON, every `interval`
///   GET|POST /homebase/act/NAME   an action (`PageSource.act`): its JSON reply; one that reports
///                            progress answers NDJSON instead (200, progress lines, the reply last)
///                            (POSTs pass the gate's Origin and Content-Type checks like the API's)
///
/// The Content-Security-Policy lets the page reach its own origin only: nothing it loads or
/// sends leaves loopback, whatever a model writes into an answer.
enum PageRoutes {
    static let policy = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        + "img-src 'self' data: blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// The page's own files: no secret in them, so they load before a token is typed (the page
    /// then asks for it); what they read (status, events, actions) needs it.
    static func isStatic(_ request: HTTPRequest) -> Bool {
        guard request.method == "GET" else { return false }
        switch request.path {
        case "/": return (request.headers["accept"] ?? "").contains("text/html")
        case "/homebase/page.js", "/homebase/page.css", "/homebase/controls.js": return true
        default: return false
        }
    }

    /// True when the request was one of the page's (and is answered).
    static func handle(_ request: HTTPRequest, _ responder: HTTPResponder, _ cors: HTTPHeaders, page: PageSource) -> Bool {
        let prefix = "/homebase/act/"
        if request.path.hasPrefix(prefix), request.method == "GET" || request.method == "POST" {
            act(request, String(request.path.dropFirst(prefix.count)), responder, cors, page)
            return true
        }
        guard request.method == "GET" else { return false }
        switch String(request.path) {
        case "/" where (request.headers["accept"] ?? "").contains("text/html"):
            responder.respond(file(PageHTML.text, "text/html; charset=utf-8", cors))
        case "/homebase/page.js": responder.respond(file(PageScript.text, "text/javascript; charset=utf-8", cors))
        case "/homebase/page.css": responder.respond(file(PageStyle.text, "text/css; charset=utf-8", cors))
        case "/homebase/controls.js": responder.respond(file(PageControls.text, "text/javascript; charset=utf-8", cors))
        case "/homebase/status":
            Task {
                var h = cors
                h.add("Content-Type", "application/json")
                h.add("Cache-Control", "no-store")
                responder.respond(HTTPResponse(status: .ok, headers: h, body: await page.status()))
            }
        case "/homebase/events": events(responder, cors, page)
        default: return false
        }
        return true
    }

    static func file(_ text: String, _ type: String, _ cors: HTTPHeaders) -> HTTPResponse {
        var h = cors
        h.add("Content-Type", type)
        h.add("Content-Security-Policy", policy)
        h.add("X-Content-Type-Options", "nosniff")
        h.add("Cache-Control", "no-cache")
        return HTTPResponse(status: .ok, headers: h, body: Array(text.utf8))
    }

    /// A push of the status now and every `interval`, until the page goes away.
    static func events(_ responder: HTTPResponder, _ cors: HTTPHeaders, _ page: PageSource) {
        var h = cors
        h.add("Content-Type", "text/event-stream")
        h.add("Cache-Control", "no-cache")
        responder.start(status: .ok, headers: h)
        let task = Task {
            while !Task.isCancelled, !responder.isClosed {
                // The encoder writes one line (no pretty printing), so one `data:` field holds it.
                responder.write(Array("event: status\ndata: ".utf8) + (await page.status()) + Array("\n\n".utf8))
                do { try await Task.sleep(for: page.interval) } catch { break }
            }
        }
        responder.onClose { task.cancel() }
    }

    /// A pull's progress lines come before its reply; once the head has gone, the reply's own
    /// words (`"ok"`, `"error"`) are what tell how it ended.
    static func act(_ request: HTTPRequest, _ name: String, _ responder: HTTPResponder, _ cors: HTTPHeaders, _ page: PageSource) {
        guard let act = page.act else {
            var h = cors
            h.add("Content-Type", "application/json")
            responder.respond(HTTPResponse(status: HTTPStatus(code: 404, reason: "Not Found"), headers: h,
                                           body: Array(#"{"status":404,"error":"this page is read-only"}"#.utf8)))
            return
        }
        var headers = cors
        headers.add("Cache-Control", "no-store")
        let h = headers, method = String(request.method), body = request.body
        // The head waits for the first progress line: an action without any answers its own status.
        let started = Mutex(false)
        Task {
            let reply = await act(method, name, body) { line in
                let first = started.withLock { s in defer { s = true }; return !s }
                if first {
                    var s = h
                    s.add("Content-Type", "application/x-ndjson")
                    responder.start(status: .ok, headers: s)
                }
                responder.write(line + [10])
            }
            if started.withLock({ $0 }) {
                responder.write(reply.body + [10])
                responder.finish()
            } else {
                var j = h
                j.add("Content-Type", "application/json")
                responder.respond(HTTPResponse(status: HTTPStatus(code: reply.status, reason: reply.status < 300 ? "OK" : "Refused"),
                                               headers: j, body: reply.body))
            }
        }
    }
}
