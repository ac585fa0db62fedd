import Signing
import Synchronization
import Testing
import Wire
@testable import PeerLink

/// The device-side state machine, frame by frame, without sockets.
@Suite("LinkSession state machine")
struct SessionTests {
    let key = SigningKey.generate()
    let relay = try! RelayURL(parsing: "wss://relay.example/v1/connect")
    let nonce = Bytes32.repeating(7)

    func session(token: [UInt8]? = nil) -> LinkSession {
        LinkSession(relay: relay, identity: key, account: nil, admission: .token(token))
    }

    @Test func signsTheTranscriptOverTheChallengedOrigin() throws {
        var s = session(token: [1, 2])
        // The relay writes its origin without the default port: still ours.
        let action = s.handle(.challenge(.init(nonce: nonce, origin: "wss://relay.example")))
        guard case .send(.auth(let auth)) = action else { Issue.record("\(action)"); return }
        #expect(auth.deviceKey == key.publicKey)
        #expect(auth.admissionToken == [1, 2])
        let transcript = try RelayAuth.transcript(origin: "wss://relay.example", challenge: nonce, deviceKey: auth.deviceKey)
        #expect(key.publicKey.isValidSignature(auth.signature.bytes, for: transcript))
        #expect(s.phase == .awaitAuthResult)
        let ok = RelayFrame.AuthOK(serverTimeMs: 1, mailboxCapacity: 2, maxTTLSeconds: 3)
        #expect(s.handle(.authOK(ok)) == .authenticated(ok))
        #expect(s.isOpen)
    }

    @Test func refusesToSignForAnotherOrigin() {
        var s = session()
        let action = s.handle(.challenge(.init(nonce: nonce, origin: "wss://evil.example:443")))
        guard case .refuse(.originMismatch("wss://evil.example:443"), send: .error(let e)?) = action else {
            Issue.record("\(action)"); return
        }
        #expect(e.code == .protocolViolation)
        #expect(s.phase == .awaitChallenge)
        // Scheme and port count too.
        var t = session()
        #expect(t.handle(.challenge(.init(nonce: nonce, origin: "ws://relay.example:443"))) != .send(.pong(0)))
        if case .refuse(.originMismatch, _) = t.handle(.challenge(.init(nonce: nonce, origin: "wss://relay.example:8443"))) {} else {
            Issue.record("port mismatch accepted")
        }
    }

    @Test func aClusterNodeSignsForItsOwnOriginOrTheClustersAndNoOther() throws {
        let node = try RelayURL(parsing: "wss://node2.example/v1/connect")
        for named in ["wss://relay.example", "wss://node2.example"] {
            var s = LinkSession(relay: node, cluster: relay, identity: key, account: nil, admission: .token(nil))
            guard case .send(.auth(let auth)) = s.handle(.challenge(.init(nonce: nonce, origin: named))) else {
                Issue.record("\(named) not answered"); continue
            }
            let transcript = try RelayAuth.transcript(origin: named, challenge: nonce, deviceKey: auth.deviceKey)
            #expect(key.publicKey.isValidSignature(auth.signature.bytes, for: transcript))
        }
        var s = LinkSession(relay: node, cluster: relay, identity: key, account: nil, admission: .token(nil))
        guard case .refuse(.originMismatch, _) = s.handle(.challenge(.init(nonce: nonce, origin: "wss://node3.example"))) else {
            Issue.record("a third origin was signed for"); return
        }
    }

    @Test func unsupportedVersionIsARefusalWithAnErrorFrame() {
        var s = session()
        let action = s.handle(.challenge(.init(version: 2, nonce: nonce, origin: "wss://relay.example:443")))
        guard case .refuse(.unsupportedVersion(2), send: .error(let e)?) = action else { Issue.record("\(action)"); return }
        #expect(e.code == .unsupportedVersion)
    }

    @Test func framesOutOfOrderAreProtocolViolations() {
        var s = session()
        let r = RelayFrame.Receive(sender: .zero, deliveryClass: .mail, frameID: .zero, heldMs: 0, sealed: [])
        guard case .drop(_, send: .error(let e)?) = s.handle(.receive(r)) else { Issue.record("receive before challenge"); return }
        #expect(e.code == .protocolViolation)
        _ = s.handle(.challenge(.init(nonce: nonce, origin: "wss://relay.example:443")))
        if case .drop = s.handle(.stored(frameID: .zero)) {} else { Issue.record("stored before auth-ok accepted") }
        // A device-only frame from the relay, after auth.
        var open = openSession()
        if case .drop = open.handle(.ack(frameID: .zero)) {} else { Issue.record("ack from the relay accepted") }
        if case .drop = open.handle(.challenge(.init(nonce: nonce, origin: "wss://relay.example:443"))) {} else {
            Issue.record("second challenge accepted")
        }
    }

    @Test func openSessionMapsRelayAnswers() {
        var s = openSession()
        let id = Bytes16.repeating(3)
        #expect(s.handle(.notHere(frameID: id)) == .answer(id, .notHere))
        #expect(s.handle(.stored(frameID: id)) == .answer(id, .stored))
        #expect(s.handle(.mailboxFull(frameID: id)) == .answer(id, .mailboxFull))
        #expect(s.handle(.dropped(frameID: id)) == .answer(id, .dropped))
        #expect(s.handle(.queueEmpty) == .queueEmpty)
        #expect(s.handle(.pong(9)) == .pong(9))
        #expect(s.handle(.unknown(type: 0x7f)) == .none)
    }

    @Test func pingsAreAnsweredInEveryPhase() {
        var s = session()
        #expect(s.handle(.ping(5)) == .send(.pong(5)))
        var o = openSession()
        #expect(o.handle(.ping(6)) == .send(.pong(6)))
    }

    @Test func relayErrorsAndRefusals() {
        var s = openSession()
        #expect(s.handle(.error(.init(code: .replaced, text: ""))) == .refuse(.replaced, send: nil))
        #expect(s.handle(.error(.init(code: .shuttingDown, text: ""))) == .refuse(.shuttingDown, send: nil))
        if case .drop(_, send: nil) = s.handle(.error(.init(code: RelayErrorCode(rawValue: 999), text: "new"))) {} else {
            Issue.record("unknown error code not fatal")
        }
        #expect(s.handle(.restarting(reconnectAfterMs: 250)) == .restarting(reconnectAfterMs: 250))
        let gone = RelayFrame.PeerGone(peer: .repeating(0xE2), reason: .silent)
        #expect(s.handle(.peerGone(gone)) == .peerGone(gone))
        var t = session()
        _ = t.handle(.challenge(.init(nonce: nonce, origin: "wss://relay.example:443")))
        let refused = t.handle(.authRefused(.init(reason: AuthRefusalReason(rawValue: 77), text: "no")))
        #expect(refused == .refuse(.authRefused(AuthRefusalReason(rawValue: 77), text: "no"), send: nil))
    }

    private func openSession() -> LinkSession {
        var s = session()
        _ = s.handle(.challenge(.init(nonce: nonce, origin: "wss://relay.example:443")))
        _ = s.handle(.authOK(.init(serverTimeMs: 0, mailboxCapacity: 0, maxTTLSeconds: 0)))
        return s
    }
}

/// Admission by account: the proof goes before `auth`, made for the canonical origin.
@Suite("LinkSession admission")
struct SessionAdmissionTests {
    @Test func theDeviceProofPrecedesAuthAndIsAskedForTheCanonicalOrigin() throws {
        let key = SigningKey.generate()
        let asked = Mutex<[String]>([])
        let proof = RelayFrame.DeviceProof(accountKey: .repeating(1), rosterVersion: 2, notAfterSeconds: 3, signature: .repeating(4))
        let admission = LinkAdmission(deviceProof: { origin, _ in asked.withLock { $0.append(origin) }; return proof },
                                      token: { _ in [7, 7] })
        var s = LinkSession(relay: try RelayURL(parsing: "wss://Relay.Example/v1/connect"), identity: key, account: nil,
                            admission: admission)
        let action = s.handle(.challenge(.init(nonce: .repeating(9), origin: "wss://relay.example")))
        guard case .sendAll(let frames) = action, frames.count == 2, case .auth(let auth) = frames[1] else {
            Issue.record("\(action)"); return
        }
        #expect(frames[0] == .deviceProof(proof))
        #expect(auth.admissionToken == [7, 7])
        #expect(asked.withLock { $0 } == ["wss://relay.example:443"])
    }
}
