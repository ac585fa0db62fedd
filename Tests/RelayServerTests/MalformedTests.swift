import Glibc
import Testing
import Wire
@testable import RelayServer

/// A raw socket that has upgraded (the 101 answer and the challenge are read and dropped).
func upgradedSocket(_ h: RelayHarness) throws -> RawSocket {
    let s = try RawSocket(port: h.port)
    try s.write(RawSocket.upgradeRequest)
    var buf = [UInt8](repeating: 0, count: 4096)
    let n = recv(s.fd, &buf, buf.count, 0)
    guard n > 0, String(decoding: buf[0..<n], as: UTF8.self).hasPrefix("HTTP/1.1 101") else { throw TestSetupError("no upgrade") }
    return s
}

@Suite struct MalformedTests {
    /// Each case must close its own connection and leave an authenticated device working.
    private func expectClosesOnlyItself(_ setup: (RelayHarness) throws -> Void, config: (inout RelayConfig) -> Void = { _ in }) throws {
        let h = try RelayHarness(config)
        defer { h.stop() }
        let good = try h.device()
        try setup(h)
        try expectStillWorks(good)
    }

    @Test func unmaskedClientFrameCloses() throws {
        try expectClosesOnlyItself { h in
            let s = try upgradedSocket(h)
            try s.write(RawSocket.wsFrame([0x20, 0, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 1], masked: false))
            #expect(s.closedByPeer().closed)
        }
    }

    @Test func oversizeLengthInHeaderAnswersFrameTooLarge() throws {
        let h = try RelayHarness()
        defer { h.stop() }
        let good = try h.device()
        let c = try TestClient.connect(loop: h.clients.loop, port: h.port)
        c.sendRaw([0x20, 0, 0x00, 0x02, 0x00, 0x00]) // length 131072 > 65792
        let (frames, _) = try c.untilClosed()
        #expect(frames.contains { if case .error(let e) = $0 { e.code == .frameTooLarge } else { false } })
        try expectStillWorks(good)
    }

    @Test func oversizeMessageAnswersFrameTooLarge() throws {
        let h = try RelayHarness { $0.maxFrameSize = 1000 }
        defer { h.stop() }
        let c = try h.device()
        c.live(to: SigningKeyBox().publicKey, id: frameID(), Array(repeating: 0, count: 2000))
        let (frames, _) = try c.untilClosed()
        #expect(frames.contains { if case .error(let e) = $0 { e.code == .frameTooLarge } else { false } })
    }

    @Test func messageBeyondTheProtocolLimitIsCutByTheCodec() throws {
        let h = try RelayHarness()
        defer { h.stop() }
        let good = try h.device()
        let c = try h.device()
        c.sendRaw(Array(repeating: 0x10, count: Limits.maxFrame + 100))
        #expect(try c.untilClosed().code == 1009)
        try expectStillWorks(good)
    }

    @Test func truncatedRelayFrameIsAProtocolViolation() throws {
        let h = try RelayHarness()
        defer { h.stop() }
        let good = try h.device()
        let c = try h.device()
        // A send whose header claims 100 body bytes inside a 30-byte message.
        c.sendRaw([0x10, 0, 0, 0, 0, 100] + Array(repeating: 0, count: 24))
        let (frames, _) = try c.untilClosed()
        #expect(frames.contains { if case .error(let e) = $0 { e.code == .protocolViolation } else { false } })
        try expectStillWorks(good)
    }

    @Test func garbageAfterUpgradeCloses() throws {
        try expectClosesOnlyItself { h in
            let s = try upgradedSocket(h)
            try s.write((0..<512).map { _ in UInt8.random(in: 0...255) })
            #expect(s.closedByPeer().closed)
        }
    }

    @Test func textMessageCloses() throws {
        try expectClosesOnlyItself { h in
            let s = try upgradedSocket(h)
            try s.write(RawSocket.wsFrame(Array("hello".utf8), opcode: 1))
            #expect(s.closedByPeer().closed)
        }
    }

    @Test func headerFloodIsRefused() throws {
        try expectClosesOnlyItself { h in
            let s = try RawSocket(port: h.port)
            var req = "GET /v1/connect HTTP/1.1\r\nHost: x\r\n"
            for i in 0..<2000 { req += "X-Flood-\(i): \(String(repeating: "a", count: 64))\r\n" }
            try? s.write(Array((req + "\r\n").utf8))
            let (closed, bytes) = s.closedByPeer()
            #expect(closed)
            #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("HTTP/1.1 431") || bytes.isEmpty)
        }
    }

    @Test func slowlorisIsCutAtTheHeaderDeadline() throws {
        try expectClosesOnlyItself({ h in
            let s = try RawSocket(port: h.port)
            try s.write(Array("GET /v1/connect HTTP/1.1\r\nHost: x\r\n".utf8)) // and never the end of the head
            #expect(s.closedByPeer().closed)
        }, config: { $0.headerTimeout = .milliseconds(100) })
    }
}
