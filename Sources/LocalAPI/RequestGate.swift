import Transport

/// Who may ask `guest serve`. A web page in the user's browser can send requests to loopback:
/// a cross-site `text/plain` POST needs no preflight, and after DNS rebinding the page's own
/// name points at 127.0.0.1 and it reads the answers. So, before any route:
///
/// - `Host` must name loopback (`localhost`, 127.0.0.0/8, `[::1]`, any port) when serve is bound
///   to loopback: a rebound name is refused (Ollama's fix for CVE-2024-28224). A request with
///   no `Host` (HTTP/1.0) passes: browsers always send one.
/// - `Origin`, when present, must be serve's own (`http://` + the `Host`) or one given with
///   `--allow-origin`; `null` never passes. Allowed origins get CORS headers and preflights.
/// - A POST must say `Content-Type: application/json` (parameters allowed): no other type
///   can be sent cross-site without a preflight. A POST with no type at all passes only without
///   an `Origin`: browsers send `Origin` with every POST, and programs such as litellm's
///   `ollama_chat` (aider's Ollama door) send JSON untyped, which Ollama accepts.
///
/// Refusals are 403 (host, origin) and 415 (content type), with the API's JSON error.
struct RequestGate: Sendable {
    /// Host checks apply only to a loopback bind (a remote bind needs a token anyway).
    var checkHost: Bool
    /// Exact `scheme://host[:port]` origins, lowercase.
    var allowedOrigins: Set<String>

    enum Verdict: Equatable {
        /// Go on; add `headers` (CORS for an allowed cross-origin) to the answer.
        case pass(headers: HTTPHeaders)
        /// A CORS preflight of an allowed origin: answer 204 with `headers`.
        case preflight(headers: HTTPHeaders)
        case refuse(status: HTTPStatus, message: String)
    }

    static let forbidden = HTTPStatus(code: 403, reason: "Forbidden")
    static let unsupportedType = HTTPStatus(code: 415, reason: "Unsupported Media Type")

    func check(_ request: HTTPRequest) -> Verdict {
        let host = request.headers["host"]
        if checkHost, let host, !Self.isLoopbackHost(host) {
            return .refuse(status: Self.forbidden, message: "Host \"\(host.prefix(80))\" is not a loopback name: "
                           + "guest serve answers only requests to localhost, 127.0.0.1 or [::1]")
        }
        var cors = HTTPHeaders()
        if let raw = request.headers["origin"] {
            let origin = Self.normalized(raw)
            let own = host.map { "http://" + $0.lowercased() }
            if origin != own {
                guard allowedOrigins.contains(origin) else {
                    return .refuse(status: Self.forbidden, message: "Origin \"\(raw.prefix(80))\" is not allowed: "
                                   + "start guest serve with --allow-origin \(raw.prefix(80)) to let that page use it")
                }
                cors = HTTPHeaders([("Access-Control-Allow-Origin", raw), ("Vary", "Origin")])
                if request.method == "OPTIONS" {
                    cors.add("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
                    cors.add("Access-Control-Allow-Headers", "Authorization, Content-Type, X-Api-Key, Anthropic-Version, Anthropic-Beta")
                    cors.add("Access-Control-Max-Age", "600")
                    return .preflight(headers: cors)
                }
            }
        }
        let type = request.headers["content-type"]
        let untypedProgram = type == nil && request.headers["origin"] == nil
        if request.method == "POST", !Self.isJSON(type), !untypedProgram {
            return .refuse(status: Self.unsupportedType, message: "send the body as Content-Type: application/json "
                           + "(got \(request.headers["content-type"].map { "\"\($0.prefix(60))\"" } ?? "none"))")
        }
        return .pass(headers: cors)
    }

    /// `application/json`, any case, with or without parameters (`; charset=utf-8`).
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let media = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
        return stripped(media).lowercased() == "application/json"
    }

    /// `localhost`, 127.0.0.0/8 or `[::1]`, each with or without `:PORT` (`LoopbackNames`).
    static func isLoopbackHost(_ value: String) -> Bool { LoopbackNames.isHost(value) }

    /// Lowercase, without a trailing `/` (origins have no path).
    static func normalized(_ origin: String) -> String {
        var o = stripped(Substring(origin)).lowercased()
        while o.hasSuffix("/") { o.removeLast() }
        return o
    }

    /// What `--allow-origin` accepts: `http://` or `https://` and a host, optionally a port; no path.
    static func parseOrigin(_ text: String) throws(LocalAPIError) -> String {
        let o = normalized(text)
        for scheme in ["http://", "https://"] where o.hasPrefix(scheme) {
            let rest = o.dropFirst(scheme.count)
            if !rest.isEmpty, !rest.contains("/"), !rest.contains("?"), !rest.contains("#"), !rest.contains("@") { return o }
        }
        throw .invalidOrigin(text)
    }
}

/// Without leading and trailing spaces and tabs.
private func stripped(_ s: Substring) -> String {
    var s = s
    while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
    while let l = s.last, l == " " || l == "\t" { s.removeLast() }
    return String(s)
}
