// TEST FAKE (part of ScriptedRelay): one device connection at the scripted relay.
import Signing
import Transport
import Wire

final class RelaySession {
    unowned let relay: ScriptedRelay
    let ws: WebSocket
    let nonce = Bytes32(unchecked: randomBytes(count: 32))
    var deviceKey: Bytes32?
    var open = false

    init(relay: ScriptedRelay, ws: WebSocket) { self.relay = relay; self.ws = ws }

    func send(_ frame: RelayFrame) {
        guard let bytes = try? frame.encode() else { return }
        ws.send(binary: bytes)
    }

    func sendChallenge() { send(.challenge(.init(nonce: nonce, origin: relay.challengeOrigin))) }

    func received(_ message: WebSocketMessage) {
        guard case .binary(let bytes) = message else { ws.close(code: .unsupportedData); return }
        let frame: RelayFrame
        do { frame = try RelayFrame.decode(bytes) } catch {
            fail(error.relayErrorCode, error.description)
            return
        }
        let script = relay.current
        switch frame {
        case .ping(let v):
            relay.record.withLock { $0.pings += 1 }
            if script.answerPings { send(.pong(v)) }
        case .pong, .unknown: return
        case .error: ws.close()
        case .auth(let a) where !open && deviceKey == nil: authenticate(a, script)
        case .send(let s) where open: routed(s, script)
        case .ack(let id) where open:
            relay.record.withLock { $0.acks.append(id) }
            relay.mailboxes[deviceKey!]?.removeAll { $0.frameID == id }
        default:
            fail(open ? .protocolViolation : .authRequired, "\(frame) not allowed now")
        }
    }

    private func authenticate(_ a: RelayFrame.Auth, _ script: ScriptedRelay.Script) {
        // Verify over OUR origin and OUR nonce, never anything taken from the frame.
        let transcript = try! RelayAuth.transcript(origin: relay.challengeOrigin, challenge: nonce, deviceKey: a.deviceKey)
        var reason: AuthRefusalReason?
        if !a.deviceKey.isValidSignature(a.signature.bytes, for: transcript) {
            reason = .badSignature
        } else if let proof = a.account,
                  !proof.accountKey.isValidSignature(
                      proof.signature.bytes, for: RelayAuth.accountBinding(deviceKey: a.deviceKey)) {
            reason = .badAccountProof
        } else if let need = script.requiredToken, a.admissionToken != need {
            reason = .badToken
        } else if let r = script.refuse {
            reason = r
        }
        if let reason {
            relay.record.withLock { $0.refusals += 1 }
            send(.authRefused(.init(reason: reason, text: "refused by script")))
            ws.close()
            return
        }
        relay.record.withLock {
            $0.authOK += 1
            if let k = a.account?.accountKey { $0.accountKeys.append(k) }
        }
        deviceKey = a.deviceKey
        open = true
        send(.authOK(.init(serverTimeMs: 1_700_000_000_000, mailboxCapacity: UInt32(script.mailboxCapacity), maxTTLSeconds: 86_400)))
        relay.admitted(self)
    }

    private func routed(_ s: RelayFrame.Send, _ script: ScriptedRelay.Script) {
        relay.record.withLock { $0.sends.append(s.frameID) }
        let target = relay.session(for: s.recipient)
        switch s.deliveryClass {
        case .live:
            guard let target else { send(.notHere(frameID: s.frameID)); return }
            target.send(.receive(.init(sender: deviceKey!, deliveryClass: .live, frameID: s.frameID, heldMs: 0, sealed: s.sealed)))
        case .mail:
            guard script.storeMail else { return } // swallowed: no answer
            var box = relay.mailboxes[s.recipient] ?? []
            guard box.count < script.mailboxCapacity else { send(.mailboxFull(frameID: s.frameID)); return }
            if !box.contains(where: { $0.frameID == s.frameID }) { // a resend: already stored
                box.append(.init(sender: deviceKey!, frameID: s.frameID, sealed: s.sealed, storedAt: .now))
            }
            relay.mailboxes[s.recipient] = box
            send(.stored(frameID: s.frameID))
            if let target, let mail = box.last(where: { $0.frameID == s.frameID }) { relay.deliver(mail, to: target) }
        }
    }

    private func fail(_ code: RelayErrorCode, _ text: String) {
        send(.error(.init(code: code, text: text)))
        ws.close()
    }
}
