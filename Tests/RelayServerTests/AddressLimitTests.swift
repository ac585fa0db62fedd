import Foundation
import Testing
import Wire
@testable import RelayServer

/// A stranger on one address (127.0.0.2) against a device on another (127.0.0.1), on a REAL relay.
/// The attack sizes are small multiples of small limits (the 2-core test machine; the limits are
/// settings): what is checked is that the other address still gets in, not any speed.
@Suite struct AddressLimitTests {
    static let attacker = "127.0.0.2"

    /// 1,000 bare sockets and 60 authenticated devices from one address, against max-connections
    /// 200: the per-address caps keep slots for a device from another address.
    @Test func oneAddressCannotTakeEveryConnectionSlot() throws {
        let h = try RelayHarness { c in
            c.maxConnections = 200
            c.headerTimeout = .seconds(60) // held sockets stay held for the whole test
            c.limits.ipMaxConnections = 40
            c.limits.ipMaxPending = 20
        }
        defer { h.stop() }
        var devices: [TestClient] = []
        for _ in 0..<60 {
            guard let c = try? TestClient.connect(loop: h.clients.loop, port: h.port, from: Self.attacker) else { continue }
            try c.authenticate(key: SigningKeyBox(), origin: h.origin)
            if case .authOK = try? c.next() { devices.append(c) }
        }
        #expect(devices.count <= 40)
        var held: [RawSocket] = []
        for _ in 0..<1_000 { if let s = try? RawSocket(port: h.port, from: Self.attacker) { held.append(s) } }
        let device = try h.device() // from 127.0.0.1: must get in
        try expectStillWorks(device)
        #expect(try h.metric("homebase_relay_connections_refused_total{reason=\"per-address\"}") > 0)
        withExtendedLifetime(held) {}
    }

    /// The per-address accept bucket: a burst of connects beyond it is closed at once.
    @Test func perAddressAcceptBucketClosesAFlood() throws {
        let h = try RelayHarness { c in
            c.limits.ipAcceptRate = 0.001
            c.limits.ipAcceptBurst = 5
        }
        defer { h.stop() }
        var closed = 0
        for _ in 0..<20 {
            let s = try RawSocket(port: h.port, from: Self.attacker)
            try s.write(RawSocket.upgradeRequest)
            if !((try? readHead(s))?.hasPrefix("HTTP/1.1 101") ?? false) { closed += 1 }
        }
        #expect(closed >= 15)
        _ = try h.device()
    }

    /// Tokens guessed at full speed from one address: after auth-failure-burst failures every
    /// auth from it is refused `rate-limited` (even a right one); another address is unaffected.
    @Test func guessedTokensGetRateLimited() throws {
        let dir = try temporaryDirectory("relay")
        let file = dir + "/tokens"
        try "right-token\n".write(toFile: file, atomically: true, encoding: .utf8)
        let h = try RelayHarness { c in
            c.admission = .token; c.tokenFile = file
            c.limits.authFailureBurst = 5
            c.limits.authFailureRate = 0.001
        }
        defer { h.stop() }
        var reasons: [AuthRefusalReason] = []
        for i in 0..<30 {
            let c = try TestClient.connect(loop: h.clients.loop, port: h.port, from: Self.attacker)
            try c.authenticate(key: SigningKeyBox(), origin: h.origin, token: Array("guess-\(i)".utf8))
            if case .authRefused(let r) = try c.next() { reasons.append(r.reason) }
        }
        #expect(reasons.count == 30)
        #expect(reasons.contains(.rateLimited))
        let right = try TestClient.connect(loop: h.clients.loop, port: h.port, from: Self.attacker)
        try right.authenticate(key: SigningKeyBox(), origin: h.origin, token: Array("right-token".utf8))
        guard case .authRefused(let r) = try right.next() else { Issue.record("a throttled address got in"); return }
        #expect(r.reason == .rateLimited)
        let other = try TestClient.connect(loop: h.clients.loop, port: h.port)
        try other.authenticate(key: SigningKeyBox(), origin: h.origin, token: Array("right-token".utf8))
        guard case .authOK = try other.next() else { Issue.record("another address was throttled too"); return }
        #expect(try h.metric("homebase_relay_auth_failures_total{reason=\"rate-limited\"}") >= 1)
    }

    /// At max-pending the oldest unauthenticated connection is closed for the newcomer.
    @Test func oldestPendingConnectionIsEvictedFirst() throws {
        let h = try RelayHarness { c in
            c.limits.maxPending = 3
            c.headerTimeout = .seconds(60); c.handshakeTimeout = .seconds(60)
            c.limits.pressureHeaderTimeout = .seconds(60); c.limits.pressureHandshakeTimeout = .seconds(60)
        }
        defer { h.stop() }
        var sockets: [RawSocket] = []
        for _ in 0..<3 {
            let s = try RawSocket(port: h.port)
            try s.write(RawSocket.upgradeRequest) // answered: the relay accepted it (in order)
            _ = try readHead(s)
            sockets.append(s)
        }
        let newest = try RawSocket(port: h.port)
        try newest.write(RawSocket.upgradeRequest)
        #expect(try readHead(newest).hasPrefix("HTTP/1.1 101"))
        #expect(sockets[0].closedByPeer().closed)
        #expect(try h.metric("homebase_relay_connections_refused_total{reason=\"evicted-pending\"}") == 1)
    }

    /// From half of max-pending on, a new connection gets the short pressure header deadline
    /// (here 100 ms against 60 s): a silent socket is cut instead of being held.
    @Test func underPressureSilentSocketsAreCutSooner() throws {
        let h = try RelayHarness { c in
            c.limits.maxPending = 6 // pressure from 3 pending: the third connection
            c.headerTimeout = .seconds(60)
            c.limits.pressureHeaderTimeout = .milliseconds(100)
        }
        defer { h.stop() }
        var held: [RawSocket] = []
        for _ in 0..<2 {
            let s = try RawSocket(port: h.port)
            try s.write(RawSocket.upgradeRequest) // answered: accepted and pending
            _ = try readHead(s)
            held.append(s)
        }
        let silent = try RawSocket(port: h.port)
        #expect(silent.closedByPeer().closed)
        withExtendedLifetime(held) {}
    }

    /// /metrics is not on the public port; it is on the loopback metrics listener.
    @Test func metricsOnlyOnTheLoopbackListener() throws {
        let h = try RelayHarness()
        defer { h.stop() }
        #expect(try h.get("/metrics", port: h.port).0.contains("404"))
        #expect(try h.get("/healthz", port: h.port).0.contains("200"))
        #expect(try h.get("/metrics").0.contains("200"))
    }
}

/// Reads up to the end of an HTTP response head (the first CRLFCRLF).
func readHead(_ s: RawSocket) throws -> String {
    var out: [UInt8] = []
    var b = [UInt8](repeating: 0, count: 1)
    while !out.suffix(4).elementsEqual([13, 10, 13, 10]) {
        guard recv(s.fd, &b, 1, 0) == 1 else { throw TestSetupError("connection closed before the head") }
        out.append(b[0])
    }
    return String(decoding: out, as: UTF8.self)
}
