import Foundation
import Testing
import Wire
@testable import RelayServer

@Suite struct AuthTests {
    @Test func authSucceedsAndAnnouncesLimits() throws {
        let h = try RelayHarness { $0.mailboxMaxFrames = 7; $0.maxTTL = .seconds(3600); $0.mailTTL = .seconds(600) }
        defer { h.stop() }
        let c = try TestClient.connect(loop: h.clients.loop, port: h.port)
        #expect(c.challenge?.origin == h.origin)
        #expect(c.challenge?.version == 1)
        try c.authenticate(key: SigningKeyBox(), origin: h.origin)
        guard case .authOK(let ok) = try c.next() else { Issue.record("no auth-ok"); return }
        #expect(ok.mailboxCapacity == 7)
        #expect(ok.maxTTLSeconds == 3600)
        #expect(try c.next() == .queueEmpty) // empty backlog
    }

    @Test func challengesAreFreshPerConnection() throws {
        let h = try RelayHarness()
        defer { h.stop() }
        let a = try TestClient.connect(loop: h.clients.loop, port: h.port)
        let b = try TestClient.connect(loop: h.clients.loop, port: h.port)
        #expect(a.challenge!.nonce != b.challenge!.nonce)
    }

    @Test func frameBeforeAuthClosesOnlyThatConnection() throws {
        let h = try RelayHarness()
        defer { h.stop() }
        let good = try h.device()
        let bad = try TestClient.connect(loop: h.clients.loop, port: h.port)
        bad.live(to: good.key!.publicKey, id: frameID(), [1])
        let (frames, _) = try bad.untilClosed()
        #expect(frames.contains { if case .error(let e) = $0 { e.code == .authRequired } else { false } })
        try expectStillWorks(good)
        #expect(try h.metric("homebase_relay_auth_failures_total{reason=\"frame-before-auth\"}") == 1)
    }

    @Test func pingBeforeAuthIsAnswered() throws {
        let h = try RelayHarness()
        defer { h.stop() }
        let c = try TestClient.connect(loop: h.clients.loop, port: h.port)
        c.send(.ping(42))
        #expect(try c.next() == .pong(42))
    }

    /// SPEC 4 "Connection states": before auth only `auth` and `ping` are accepted; a `pong`
    /// answers no ping of the relay's (its keep-alive is WebSocket pings), so it is refused.
    @Test func pongBeforeAuthIsRefusedWithAReason() throws {
        let h = try RelayHarness()
        defer { h.stop() }
        let c = try TestClient.connect(loop: h.clients.loop, port: h.port)
        c.send(.pong(42))
        let (frames, _) = try c.untilClosed()
        #expect(frames.contains { if case .error(let e) = $0 { e.code == .authRequired } else { false } })
    }

    @Test func wrongSignatureIsRefused() throws {
        let h = try RelayHarness()
        defer { h.stop() }
        let good = try h.device()
        let bad = try TestClient.connect(loop: h.clients.loop, port: h.port)
        // Signed over another origin: a signature meant for another relay.
        try bad.authenticate(key: SigningKeyBox(), origin: "wss://elsewhere.example:443")
        let (frames, _) = try bad.untilClosed()
        #expect(refusal(frames) == .badSignature)
        try expectStillWorks(good)
        #expect(try h.metric("homebase_relay_auth_failures_total{reason=\"bad-signature\"}") == 1)
    }

    @Test func replayedAuthFromAnotherConnectionIsRefused() throws {
        let h = try RelayHarness()
        defer { h.stop() }
        let key = SigningKeyBox()
        let first = try TestClient.connect(loop: h.clients.loop, port: h.port)
        let second = try TestClient.connect(loop: h.clients.loop, port: h.port)
        // An eavesdropper replays the auth made for `first`'s challenge on `second`.
        second.send(try first.authFrame(key: key, origin: h.origin))
        let (frames, _) = try second.untilClosed()
        #expect(refusal(frames) == .badSignature)
        // The legitimate connection still authenticates with its own challenge.
        try first.authenticate(key: key, origin: h.origin)
        guard case .authOK = try first.next() else { Issue.record("first did not authenticate"); return }
    }

    @Test func badAccountProofIsRefused() throws {
        let h = try RelayHarness()
        defer { h.stop() }
        let c = try TestClient.connect(loop: h.clients.loop, port: h.port)
        let device = SigningKeyBox(), account = SigningKeyBox()
        guard case .auth(var a) = try c.authFrame(key: device, origin: h.origin, account: account) else { return }
        a.account!.signature = Bytes64.repeating(7)
        c.send(.auth(a))
        #expect(refusal(try c.untilClosed().frames) == .badAccountProof)
    }

    @Test func handshakeTimeoutClosesWithReason() throws {
        let h = try RelayHarness { $0.handshakeTimeout = .milliseconds(50) }
        defer { h.stop() }
        let c = try TestClient.connect(loop: h.clients.loop, port: h.port)
        let (frames, _) = try c.untilClosed()
        #expect(frames.contains { if case .error(let e) = $0 { e.code == .authTimeout } else { false } })
    }

    @Test func allowlistAdmitsListedDeviceAndAccountKeysAndReloads() throws {
        let dir = try temporaryDirectory("relay")
        let listed = SigningKeyBox(), account = SigningKeyBox(), later = SigningKeyBox()
        let file = dir + "/allow"
        try "# devices\n\(listed.key.publicKey.hex)\n\(account.key.publicKey.hex) # an account\n".write(toFile: file, atomically: true, encoding: .utf8)
        let h = try RelayHarness { $0.admission = .allowlist; $0.allowlistFile = file }
        defer { h.stop() }
        _ = try h.device(listed)
        // A device vouched for by an allowlisted account key.
        let viaAccount = try TestClient.connect(loop: h.clients.loop, port: h.port)
        try viaAccount.authenticate(key: SigningKeyBox(), origin: h.origin, account: account)
        guard case .authOK = try viaAccount.next() else { Issue.record("account-vouched device refused"); return }
        // Not listed: refused with a reason.
        let stranger = try TestClient.connect(loop: h.clients.loop, port: h.port)
        try stranger.authenticate(key: later, origin: h.origin)
        #expect(refusal(try stranger.untilClosed().frames) == .notAdmitted)
        // Listed after a reload (SIGHUP in the process).
        try "\(later.key.publicKey.hex)\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try h.onRelay { $0.reload() }.isEmpty)
        _ = try h.device(later)
        // A broken file keeps the previous list.
        try "not-hex\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try h.onRelay { $0.reload() }.count == 1)
        _ = try h.device(later)
    }

    @Test func tokenAdmissionChecksTheTokenAndReloads() throws {
        let dir = try temporaryDirectory("relay")
        let file = dir + "/tokens"
        try "# invites\nalpha-token\n".write(toFile: file, atomically: true, encoding: .utf8)
        let h = try RelayHarness { $0.admission = .token; $0.tokenFile = file }
        defer { h.stop() }
        let ok = try TestClient.connect(loop: h.clients.loop, port: h.port)
        try ok.authenticate(key: SigningKeyBox(), origin: h.origin, token: Array("alpha-token".utf8))
        guard case .authOK = try ok.next() else { Issue.record("token refused"); return }
        for token in [nil, Array("beta-token".utf8)] {
            let c = try TestClient.connect(loop: h.clients.loop, port: h.port)
            try c.authenticate(key: SigningKeyBox(), origin: h.origin, token: token)
            #expect(refusal(try c.untilClosed().frames) == .badToken)
        }
        try "beta-token\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try h.onRelay { $0.reload() }.isEmpty)
        let c = try TestClient.connect(loop: h.clients.loop, port: h.port)
        try c.authenticate(key: SigningKeyBox(), origin: h.origin, token: Array("beta-token".utf8))
        guard case .authOK = try c.next() else { Issue.record("reloaded token refused"); return }
    }
}

func refusal(_ frames: [RelayFrame]) -> AuthRefusalReason? {
    for f in frames { if case .authRefused(let r) = f { return r.reason } }
    return nil
}

/// A client still answers pings through the relay: its connection was not disturbed.
func expectStillWorks(_ c: TestClient) throws {
    let v = UInt64.random(in: 1...UInt64.max)
    c.send(.ping(v))
    while true {
        let f = try c.next()
        if f == .pong(v) { return }
        if case .error = f { Issue.record("connection failed: \(f)"); return }
    }
}
