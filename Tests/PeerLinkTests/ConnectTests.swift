import Basics
import Foundation
import PeerLink
import Signing
import Testing
import Transport
import Wire

@Suite("connect and authenticate against the scripted relay")
struct ConnectTests {
    @Test func authenticatesOverPlainWebSocket() async throws {
        let relay = try ScriptedRelay()
        let loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (link, rec) = try startLink(relay.url, on: loop)
        try await rec.waitConnected()
        guard case .connected(let ok) = link.state else { Issue.record("state \(link.state)"); return }
        #expect(ok.maxTTLSeconds == 86_400)
        #expect(rec.history.prefix(2) == [.connecting, .authenticating])
        #expect(relay.seen.authOK == 1)
        // The empty backlog is announced too.
        try await eventually("queue-empty") { rec.queueEmpties == 1 }
        link.stop()
        try await rec.waitFor("stopped") { $0 == .stopped }
    }

    @Test func sendsAccountProofAndAdmissionToken() async throws {
        let relay = try ScriptedRelay()
        relay.update { $0.requiredToken = Array("invite-token".utf8) }
        let loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let device = SigningKey.generate(), account = SigningKey.generate()
        let proof = account.sign(RelayAuth.accountBinding(deviceKey: device.publicKey))
        let link = try PeerLink(configuration: fastConfiguration(relay.url), identity: device,
                                accountProof: (account.publicKey, proof), admissionToken: Array("invite-token".utf8),
                                loop: loop.loop)
        let rec = Recorder(link)
        link.start()
        try await rec.waitConnected()
        #expect(relay.seen.accountKeys == [account.publicKey])
        link.stop()
    }

    @Test func authenticatesOverTLSWithPinnedSelfSignedCertificate() async throws {
        let (cert, key) = try makeCertificate()
        let relay = try ScriptedRelay(tls: TLSServerContext(certificateFile: cert, keyFile: key))
        let loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let pin = try TLSClientContext.fingerprint(ofPEMFile: cert)
        let hexPin = hexString(pin)
        #expect(relay.url.hasPrefix("wss://"))
        let (link, rec) = try startLink(relay.url, on: loop, trust: try .pinned(hex: hexPin))
        try await rec.waitConnected()
        #expect(relay.seen.authOK == 1)
        link.stop()
    }

    @Test func wrongPinIsRefusedAndSurfaced() async throws {
        let (cert, key) = try makeCertificate()
        let relay = try ScriptedRelay(tls: TLSServerContext(certificateFile: cert, keyFile: key))
        let loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        var wrong = try TLSClientContext.fingerprint(ofPEMFile: cert)
        wrong[0] ^= 0xff
        let (link, rec) = try startLink(relay.url, on: loop, trust: .pinnedSHA256(wrong)) {
            $0.backoff = Backoff(initial: .milliseconds(1), maximum: .seconds(60), jitter: 0.1)
        }
        try await rec.waitFor("refused for the certificate") {
            if case .refused(.certificate, let retry?) = $0 { retry >= .seconds(54) } else { false }
        }
        #expect(relay.seen.authOK == 0)
        #expect(rec.connections == 0)
        link.stop()
    }

    @Test func refusalBacksOffToTheMaximumInsteadOfSpinning() async throws {
        let relay = try ScriptedRelay()
        relay.update { $0.refuse = .notAdmitted }
        let loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        // A 1 ms initial backoff: a link that retried refusals like ordinary failures would spin.
        let (link, rec) = try startLink(relay.url, on: loop) {
            $0.backoff = Backoff(initial: .milliseconds(1), maximum: .milliseconds(400), jitter: 0.25)
        }
        try await rec.waitFor("refused twice") { _ in
            rec.history.filter { if case .refused = $0 { true } else { false } }.count >= 2
        }
        for case .refused(let why, let retry) in rec.history {
            #expect(why == .authRefused(.notAdmitted, text: "refused by script"))
            // Jittered downward from the maximum, never near the 1 ms initial delay.
            #expect(retry.map { $0 >= .milliseconds(300) && $0 <= .milliseconds(400) } == true)
        }
        #expect(!rec.history.contains { if case .waiting = $0 { true } else { false } })
        link.stop()
    }

    /// `start()` dials only when no retry is pending: a refused link waiting out the maximum
    /// backoff stays waiting (no second connection beside the retry's).
    @Test func startWhileARetryIsPendingDialsNothing() async throws {
        let relay = try ScriptedRelay()
        relay.update { $0.refuse = .notAdmitted }
        let loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (link, rec) = try startLink(relay.url, on: loop) {
            $0.backoff = Backoff(initial: .milliseconds(1), maximum: .seconds(600), jitter: 0)
        }
        try await rec.waitFor("refused") { if case .refused = $0 { true } else { false } }
        link.start()
        link.start()
        // The link's hops run in order on its loop: once this one has, so have both starts.
        let l = loop.loop
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in l.execute { c.resume() } }
        #expect(link.state == .refused(.authRefused(.notAdmitted, text: "refused by script"), retryIn: .seconds(600)))
        #expect(relay.seen.connections == 1)
        link.stop()
    }

    @Test func wrongOriginIsNeverSigned() async throws {
        let relay = try ScriptedRelay()
        let loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        // Dial the same socket under another name: the challenge names 127.0.0.1, we dialled localhost.
        let url = relay.url.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        let (link, rec) = try startLink(url, on: loop)
        try await rec.waitFor("origin mismatch") {
            if case .refused(.originMismatch(let o), _) = $0 { o == relay.origin } else { false }
        }
        #expect(relay.seen.authOK == 0 && relay.seen.refusals == 0)
        link.stop()
    }
}
