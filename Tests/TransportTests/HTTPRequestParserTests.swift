import Testing
@testable import Transport

private func parseAll(_ text: String, limits: HTTPRequestParser.Limits = .init(), split: Int? = nil)
    -> HTTPRequestParser.Action {
    var p = HTTPRequestParser(limits: limits)
    let bytes = Array(text.utf8)
    guard let n = split else { return p.parse(bytes) }
    var last = HTTPRequestParser.Action.needMore
    var i = 0
    while i < bytes.count {
        last = p.parse(Array(bytes[i..<min(i + n, bytes.count)]))
        if last != .needMore { return last }
        i += n
    }
    return last
}

private let upgrade = "GET /v1/connect?x=1 HTTP/1.1\r\nHost: relay.example\r\nUpgrade: websocket\r\n"
    + "Connection: keep-alive, Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
    + "Sec-WebSocket-Version: 13\r\n\r\n"

@Test func parsesUpgradeRequestInAnySplit() throws {
    for split in [nil, 1, 2, 7, 64] as [Int?] {
        guard case .request(let r) = parseAll(upgrade, split: split) else {
            Issue.record("no request at split \(String(describing: split))"); return
        }
        #expect(r.method == "GET")
        #expect(r.target == "/v1/connect?x=1")
        #expect(r.path == "/v1/connect")
        #expect(r.headers["SEC-websocket-KEY"] == "dGhlIHNhbXBsZSBub25jZQ==")
        #expect(r.headers.containsToken("connection", "upgrade"))
        #expect(r.body.isEmpty)
    }
}

@Test func keepsBytesAfterTheRequest() {
    var p = HTTPRequestParser()
    guard case .request = p.parse(Array((upgrade + "\u{82}garbage").utf8)) else {
        Issue.record("no request"); return
    }
    _ = p.parse([1, 2])
    #expect(p.takeRemainder() == Array("\u{82}garbage".utf8) + [1, 2])
}

@Test func readsSmallContentLengthBody() {
    let req = "POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhelloEXTRA"
    var p = HTTPRequestParser()
    guard case .request(let r) = p.parse(Array(req.utf8)) else { Issue.record("no request"); return }
    #expect(r.body == Array("hello".utf8))
    #expect(p.takeRemainder() == Array("EXTRA".utf8))
    // Split inside the body.
    #expect(parseAll(req, split: 3) != .needMore)
}

@Test func rejectsWithTheRightStatus() {
    var small = HTTPRequestParser.Limits()
    small.maxHeaderCount = 4
    small.maxBodyBytes = 10
    let cases: [(String, HTTPStatus)] = [
        ("GET  / HTTP/1.1\r\nHost: h\r\n\r\n", .badRequest),                 // double space
        ("GET http://x/ HTTP/1.1\r\nHost: h\r\n\r\n", .badRequest),          // not origin-form
        ("GET / HTTP/2.0\r\nHost: h\r\n\r\n", .versionNotSupported),
        ("GET / FOO/1.1\r\nHost: h\r\n\r\n", .badRequest),
        ("GET / HTTP/1.1\r\n\r\n", .badRequest),                             // no Host
        ("GET / HTTP/1.1\r\nHost: h\r\nBad Name: v\r\n\r\n", .badRequest),
        ("GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n folded\r\n\r\n", .badRequest), // obs-fold
        ("GET / HTTP/1.1\r\nHost: h\nX: y\r\n\r\n", .badRequest),            // bare LF
        ("GET / HTTP/1.1\r\nHost: h\r\nX: a\u{0}b\r\n\r\n", .badRequest),    // NUL
        ("G(T / HTTP/1.1\r\nHost: h\r\n\r\n", .badRequest),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n", .payloadTooLarge),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", .badRequest),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", .badRequest),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n", .notImplemented),
        ("GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n", .headersTooLarge),
    ]
    for (text, status) in cases {
        #expect(parseAll(text, limits: small) == .reject(status), "\(text.debugDescription)")
    }
}

@Test func headerFloodIs431AndLongLineIs414() {
    var flood = "GET / HTTP/1.1\r\nHost: h\r\n"
    for i in 0..<2000 { flood += "X-\(i): aaaaaaaaaa\r\n" }
    #expect(parseAll(flood, split: 100) == .reject(.headersTooLarge))
    let longLine = "GET /" + String(repeating: "a", count: 3000)
    #expect(parseAll(longLine, split: 512) == .reject(.uriTooLong))
}

@Test func stopsAfterRejectAndNeverGrows() {
    var p = HTTPRequestParser()
    #expect(p.parse(Array("BAD\r\n\r\n".utf8)) == .reject(.badRequest))
    #expect(p.parse(Array("GET / HTTP/1.1\r\nHost: h\r\n\r\n".utf8)) == .needMore)
}

/// A body over the limit: 413, with the head kept and the bytes still to come counted (those
/// already received with the head excluded), so the server can drain them and be heard.
@Test func bodyTooLargeKeepsTheHeadAndCountsTheRest() {
    var limits = HTTPRequestParser.Limits()
    limits.maxBodyBytes = 10
    var p = HTTPRequestParser(limits: limits)
    #expect(p.parse(Array("POST /api/chat HTTP/1.1\r\nHost: h\r\nContent-Length: 100\r\n\r\n0123456789abc".utf8)) == .reject(.payloadTooLarge))
    #expect(p.refusedHead?.path == "/api/chat")
    #expect(p.refusedHead?.method == "POST")
    #expect(p.refusedBodyRemaining == 87)
    var bad = HTTPRequestParser(limits: limits)
    #expect(bad.parse(Array("GET / HTTP/2.0\r\nHost: h\r\n\r\n".utf8)) == .reject(.versionNotSupported))
    #expect(bad.refusedHead == nil && bad.refusedBodyRemaining == 0)
}
