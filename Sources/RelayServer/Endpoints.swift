import Transport

/// Plain HTTP: `GET /healthz` on the relay's port (public), `GET /metrics` (Prometheus text) only
/// on the separate loopback listener: counters tell who is busy and how the relay is hurt.
enum Endpoints {
    static func answer(_ req: HTTPRequest, hub: Hub) -> HTTPResponse? {
        guard req.method == "GET", req.path == "/healthz" else { return nil }
        return HTTPResponse(status: .ok, text: "ok\n")
    }

    static func metrics(_ req: HTTPRequest, hub: Hub) -> HTTPResponse {
        guard req.method == "GET" else { return HTTPResponse(status: .methodNotAllowed, text: "GET only\n") }
        switch req.path {
        case "/metrics":
            let body = hub.metrics.render(hub.gauges()) + (hub.cluster?.render() ?? "")
            return HTTPResponse(status: .ok, headers: HTTPHeaders([("Content-Type", "text/plain; version=0.0.4; charset=utf-8")]),
                                body: Array(body.utf8))
        case "/healthz": return HTTPResponse(status: .ok, text: "ok\n")
        default: return HTTPResponse(status: .notFound, text: "not found\n")
        }
    }

    /// The loopback listener of `/metrics` (nil when metrics-listen is off).
    static func metricsServer(_ c: RelayConfig, loop: EventLoop, hub: Hub) throws(TransportError) -> HTTPServer? {
        guard let host = c.limits.metricsHost else { return nil }
        var m = HTTPServer.Configuration()
        m.listener.host = host == "localhost" ? "127.0.0.1" : host
        m.listener.port = c.limits.metricsPort
        m.listener.maxConnections = 64
        m.requestTimeout = c.headerTimeout
        return try HTTPServer(loop: loop, configuration: m) { [weak hub] req, responder in
            guard let hub else { responder.respond(HTTPResponse(status: .serviceUnavailable)); return }
            responder.respond(metrics(req, hub: hub))
        }
    }
}
