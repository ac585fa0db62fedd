import Transport

/// What `guest serve`'s page reads: the guest's status as JSON (the same value `guest status
/// --json` prints, encoded by the guest) and how often the event stream pushes it.
public struct PageSource: Sendable {
    public var status: @Sendable () async -> [UInt8]
    /// Between two pushes of `/homebase/events` (tests: milliseconds).
    public var interval: Duration

    public init(interval: Duration = .seconds(2), status: @escaping @Sendable () async -> [UInt8]) {
        self.status = status; self.interval = interval
    }
}

/// The page at `/` and what it reads, behind the same `RequestGate` (and token) as the API:
///
///   GET /                    the page (a browser: `Accept: text/html`; others keep Ollama's probe text)
///   GET /homebase/page.js, /homebase/page.css   its script and style, compiled in
///   GET /homebase/status     the status JSON
///   GET /homebase/events     server-sent events: `event: status` with the same JSON, every `interval`
///
/// The Content-Security-Policy lets the page reach its own origin only: nothing it loads or
/// sends leaves loopback, whatever a model writes into an answer.
enum PageRoutes {
    static let policy = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        + "img-src 'self' data: blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// True when the request was one of the page's (and is answered).
    static func handle(_ request: HTTPRequest, _ responder: HTTPResponder, _ cors: HTTPHeaders, page: PageSource) -> Bool {
        guard request.method == "GET" else { return false }
        switch String(request.path) {
        case "/" where (request.headers["accept"] ?? "").contains("text/html"):
            responder.respond(file(PageHTML.text, "text/html; charset=utf-8", cors))
        case "/homebase/page.js": responder.respond(file(PageScript.text, "text/javascript; charset=utf-8", cors))
        case "/homebase/page.css": responder.respond(file(PageStyle.text, "text/css; charset=utf-8", cors))
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
}
