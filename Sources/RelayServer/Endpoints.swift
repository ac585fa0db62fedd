import Transport

/// Plain HTTP on the relay's port: `GET /healthz` and `GET /metrics` (Prometheus text).
enum Endpoints {
    static func answer(_ req: HTTPRequest, hub: Hub) -> HTTPResponse? {
        guard req.method == "GET" else { return nil }
        switch req.path {
        case "/healthz":
            return HTTPResponse(status: .ok, text: "ok\n")
        case "/metrics":
            let body = hub.metrics.render(hub.gauges())
            return HTTPResponse(status: .ok, headers: HTTPHeaders([("Content-Type", "text/plain; version=0.0.4; charset=utf-8")]),
                                body: Array(body.utf8))
        default:
            return nil
        }
    }
}
