import Testing
@testable import Transport

@Test func acceptValueMatchesRFCExample() {
    // RFC 6455 section 1.3.
    #expect(WebSocketHandshake.acceptValue(for: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
}

private func request(_ extra: [(String, String)], drop: String? = nil, method: String = "GET") -> HTTPRequest {
    var fields: [(String, String)] = [
        ("Host", "h"), ("Upgrade", "WebSocket"), ("Connection", "keep-alive, Upgrade"),
        ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="), ("Sec-WebSocket-Version", "13"),
    ].filter { $0.0 != drop }
    fields += extra
    return HTTPRequest(method: method, target: "/v1/connect", version: "HTTP/1.1",
                       headers: HTTPHeaders(fields), body: [])
}

@Test func serverAcceptsValidUpgrade() {
    guard case .accept(let r) = WebSocketHandshake.serverResponse(to: request([])) else {
        Issue.record("refused"); return
    }
    #expect(r.status == .switchingProtocols)
    #expect(r.headers["sec-websocket-accept"] == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    let wire = String(decoding: r.encoded(), as: UTF8.self)
    #expect(wire.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
    #expect(!wire.contains("Content-Length"))
}

@Test func serverRefusesBadUpgrades() {
    func status(_ r: HTTPRequest) -> Int? {
        if case .refuse(let resp) = WebSocketHandshake.serverResponse(to: r) { return resp.status.code }
        return nil
    }
    #expect(status(request([], method: "POST")) == 405)
    #expect(status(request([], drop: "Upgrade")) == 426)
    #expect(status(request([], drop: "Connection")) == 426)
    #expect(status(request([("Sec-WebSocket-Version", "8")], drop: "Sec-WebSocket-Version")) == 426)
    #expect(status(request([], drop: "Sec-WebSocket-Key")) == 400)
    #expect(status(request([("Sec-WebSocket-Key", "short==")], drop: "Sec-WebSocket-Key")) == 400)
    #expect(status(request([("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")])) == 400) // two keys
}

@Test func clientBuildsRequestAndChecksAnswer() {
    let c = WebSocketClientHandshake(host: "relay:8443", path: "/v1/connect")
    var p = HTTPRequestParser()
    guard case .request(let r) = p.parse(c.request) else { Issue.record("client request unparseable"); return }
    #expect(r.headers["host"] == "relay:8443")
    #expect(WebSocketHandshake.isValidKey(c.key))
    guard case .accept(let resp) = WebSocketHandshake.serverResponse(to: r) else { Issue.record("refused"); return }
    var rp = HTTPResponseParser()
    guard case .head(let head) = rp.parse(resp.encoded() + [0x81]) else { Issue.record("no head"); return }
    #expect(c.validate(head) == nil)
    #expect(rp.remainder == [0x81])

    var wrong = head
    wrong.headers = HTTPHeaders(head.headers.fields.map {
        $0.name == "Sec-WebSocket-Accept" ? ($0.name, "AAAA" + $0.value.dropFirst(4)) : ($0.name, $0.value)
    })
    #expect(c.validate(wrong) == .handshake("wrong Sec-WebSocket-Accept"))
    #expect(c.validate(HTTPResponseHead(status: 403, headers: HTTPHeaders())) == .http(status: 403))
    var ext = head
    ext.headers.add("Sec-WebSocket-Extensions", "permessage-deflate")
    #expect(c.validate(ext) == .handshake("unrequested extension"))
    // Two clients never share a key.
    #expect(WebSocketClientHandshake(host: "h", path: "/").key != c.key)
}
