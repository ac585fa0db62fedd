import Testing
@testable import Transport

/// The client address a trusted proxy names: PROXY v1 lines and X-Forwarded-For (pure parsers).
@Suite struct ClientAddressTests {
    @Test func proxyLines() {
        let line = Array("PROXY TCP4 203.0.113.7 10.0.0.1 40000 443\r\nGET".utf8)
        #expect(ClientAddress.parseProxyLine(line) == .header(host: "203.0.113.7", port: 40000, length: line.count - 3))
        #expect(ClientAddress.parseProxyLine(Array("PROXY TCP6 2001:db8::1 ::1 5 6\r\n".utf8))
                == .header(host: "2001:db8::1", port: 5, length: 32))
        #expect(ClientAddress.parseProxyLine(Array("PROXY UNKNOWN\r\n".utf8)) == .header(host: nil, port: 0, length: 15))
        #expect(ClientAddress.parseProxyLine(Array("PRO".utf8)) == .needMore)
        #expect(ClientAddress.parseProxyLine(Array("PROXY TCP4 1.2.3.4".utf8)) == .needMore)
        #expect(ClientAddress.parseProxyLine(Array("GET / HTTP/1.1\r\n".utf8)) == .invalid)
        #expect(ClientAddress.parseProxyLine(Array("PROXY TCP4 999.1.1.1 1.1.1.1 1 2\r\n".utf8)) == .invalid)
        #expect(ClientAddress.parseProxyLine(Array(("PROXY TCP4 " + String(repeating: "1", count: 120)).utf8)) == .invalid)
    }

    @Test func forwardedForTakesTheRightMostUntrustedAddress() {
        let trusted: Set = ["127.0.0.1", "10.0.0.2"]
        #expect(ClientAddress.forwardedFor(["6.6.6.6, 203.0.113.7, 10.0.0.2"], trusted: trusted) == "203.0.113.7")
        #expect(ClientAddress.forwardedFor(["203.0.113.7", "10.0.0.2"], trusted: trusted) == "203.0.113.7")
        #expect(ClientAddress.forwardedFor(["not-an-address"], trusted: trusted) == nil)
        #expect(ClientAddress.forwardedFor(["10.0.0.2"], trusted: trusted) == nil)
        #expect(ClientAddress.forwardedFor(["[2001:db8::5]"], trusted: trusted) == "2001:db8::5")
    }
}
