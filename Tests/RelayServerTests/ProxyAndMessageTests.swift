import Foundation
import Testing
import Wire
@testable import RelayServer

/// The client address behind a trusted proxy, and the bound on an unfinished message.
@Suite struct ProxyAndMessageTests {
    /// PROXY v1 from a trusted proxy: per-address limits count the client it names.
    @Test func proxyLineNamesTheClientForLimits() throws {
        let h = try RelayHarness { c in
            c.limits.trustedProxies = ["127.0.0.1"]; c.limits.proxyProtocol = .v1
            c.limits.ipMaxConnections = 2
        }
        defer { h.stop() }
        func viaProxy(_ client: String) throws -> (RawSocket, String) {
            let s = try RawSocket(port: h.port)
            try s.write(Array("PROXY TCP4 \(client) 127.0.0.1 40000 8080\r\n".utf8) + RawSocket.upgradeRequest)
            return (s, (try? readHead(s)) ?? "closed")
        }
        let first = try viaProxy("203.0.113.7"), second = try viaProxy("203.0.113.7")
        #expect(first.1.hasPrefix("HTTP/1.1 101") && second.1.hasPrefix("HTTP/1.1 101"))
        #expect(try viaProxy("203.0.113.7").1.hasPrefix("HTTP/1.1 429"))
        #expect(try viaProxy("198.51.100.9").1.hasPrefix("HTTP/1.1 101"))
        withExtendedLifetime([first.0, second.0]) {}
    }

    /// X-Forwarded-For counts only from a trusted proxy; from anyone else it is ignored.
    @Test func forwardedForIsBelievedOnlyFromTrustedProxies() throws {
        func upgrade(_ port: UInt16, from source: String, forwardedFor: String) throws -> (RawSocket, String) {
            let s = try RawSocket(port: port, from: source)
            let req = String(decoding: RawSocket.upgradeRequest.dropLast(2), as: UTF8.self) + "X-Forwarded-For: \(forwardedFor)\r\n\r\n"
            try s.write(Array(req.utf8))
            return (s, (try? readHead(s)) ?? "closed")
        }
        let h = try RelayHarness { c in c.limits.trustedProxies = ["127.0.0.1"]; c.limits.ipMaxConnections = 1 }
        defer { h.stop() }
        let a = try upgrade(h.port, from: "127.0.0.1", forwardedFor: "192.0.2.1, 203.0.113.7")
        #expect(a.1.hasPrefix("HTTP/1.1 101"))
        #expect(try upgrade(h.port, from: "127.0.0.1", forwardedFor: "203.0.113.7").1.hasPrefix("HTTP/1.1 429"))
        let b = try upgrade(h.port, from: "127.0.0.2", forwardedFor: "198.51.100.1")
        #expect(b.1.hasPrefix("HTTP/1.1 101"))
        // Not a trusted proxy: its header is ignored, its own address (already at 1) counts.
        #expect(try upgrade(h.port, from: "127.0.0.2", forwardedFor: "198.51.100.2").1 == "closed")
        withExtendedLifetime([a.0, b.0]) {}
    }

    /// Half a message, then only pongs: the relay closes the connection (1008) instead of holding
    /// the half message as long as pongs come. The loop is bounded; nothing is timed.
    @Test func unfinishedMessageIsCutEvenWithPongs() throws {
        let h = try RelayHarness { c in c.limits.messageTimeout = .milliseconds(200); c.idleTimeout = .seconds(600)
                                       c.handshakeTimeout = .seconds(600) } // only the message bound may cut it
        defer { h.stop() }
        let s = try RawSocket(port: h.port)
        try s.write(RawSocket.upgradeRequest)
        _ = try readHead(s)
        var first = RawSocket.wsFrame([1, 2, 3, 4])
        first[0] = 0x02 // binary, not FIN: a message begun
        try s.write(first)
        var cut = false
        for _ in 0..<400 where !cut {
            guard (try? s.write(RawSocket.wsFrame([], opcode: 0xA))) != nil else { cut = true; break }
            cut = s.isClosed(withinMs: 50)
        }
        #expect(cut)
    }
}
