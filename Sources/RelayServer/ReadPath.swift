import Transport
import RelayWire

/// The one read path: every message of every connection goes through `received`.
extension Hub {
    func received(_ message: WebSocketMessage, on s: Session) {
        guard case .binary(let m) = message else {
            // Text is not part of the protocol (spec: close with 1003).
            if !s.isClosing { unroute(s); s.state = .closing }
            s.ws.close(code: .unsupportedData, reason: "relay frames are binary messages")
            return
        }
        heard(s)
        if m.count > config.maxFrameSize {
            metrics.drop(.malformed)
            fail(s, .frameTooLarge, "a frame is at most \(config.maxFrameSize) bytes")
            return
        }
        switch s.state {
        case .closing:
            return
        case .awaitingAuth(let nonce, let deadline):
            beforeAuth(m, on: s, nonce: nonce, deadline: deadline)
        case .authenticated(let peer):
            guard limiter.allow(slot: rateSlot(s, peer.key), now: s.lastHeard) else {
                metrics.drop(.rateLimited)
                fail(s, .rateLimited, "more than \(config.rate) frames per second (burst \(config.burst))")
                return
            }
            // The hot path: a send is checked in place, never decoded into copies.
            if m.first == SendView.typeCode {
                do throws(WireError) { handleSend(m, try SendView.parse(m), from: s, sender: peer.key) } catch { malformed(s, error) }
                return
            }
            afterAuth(m, on: s, peer: peer)
        }
    }

    /// The session's slot in the rate limiter, looked up again only after a prune moved slots.
    private func rateSlot(_ s: Session, _ key: Bytes32) -> Int {
        if let r = s.rateSlot, r.generation == limiter.generation { return r.slot }
        let slot = limiter.slot(for: key, now: s.lastHeard)
        s.rateSlot = (limiter.generation, slot)
        return slot
    }

    private func decode(_ m: [UInt8], on s: Session) -> RelayFrame? {
        do throws(WireError) { return try RelayFrame.decode(m) } catch {
            malformed(s, error)
            return nil
        }
    }

    func malformed(_ s: Session, _ e: WireError) {
        metrics.drop(.malformed)
        fail(s, e.relayErrorCode, "malformed frame: \(e)")
    }

    private func beforeAuth(_ m: [UInt8], on s: Session, nonce: Bytes32, deadline: TimerHandle) {
        if let d = cluster?.device(s), d.joining { return } // authenticated; auth-ok follows the cluster's flush
        guard let frame = decode(m, on: s) else { return }
        switch frame {
        case .auth(let a):
            loop.cancel(deadline)
            if authThrottled(s) { return }
            authenticate(s, a, nonce: nonce)
            if s.isClosing { noteAuthFailure(s) }
        case .deviceProof(let p): s.pendingProof = p // used by the auth that follows
        case .ping(let v): s.control(.pong(v))
        // A pong answers no ping before auth (the relay's keep-alive is WebSocket pings): refused below.
        case .unknown: return
        case .error: s.state = .closing; s.ws.close(code: .normal, reason: "")
        default:
            metrics.authFailed(.frameBeforeAuth)
            fail(s, .authRequired, "authenticate first: only auth (or ping) is accepted before auth-ok")
        }
    }

    private func afterAuth(_ m: [UInt8], on s: Session, peer: Session.Peer) {
        guard let frame = decode(m, on: s) else { return }
        switch frame {
        case .ack(let id): ack(id, from: s, key: peer.key)
        case .accountOrder(let o): order(o, from: s)
        case .ping(let v): s.control(.pong(v))
        case .pong, .unknown: return
        case .error(let e):
            log.debug("\(s.name) sent error \(e.code.rawValue)")
            unroute(s); s.state = .closing
            s.ws.close(code: .normal, reason: "")
        case .send: return // handled on the hot path above
        case .auth, .challenge, .authOK, .authRefused, .receive, .notHere, .stored, .mailboxFull, .dropped,
             .queueEmpty, .restarting, .deviceProof, .peerGone:
            metrics.drop(.protocolViolation)
            fail(s, .protocolViolation, "frame type \(frame.typeCode) is not allowed from a device after auth-ok")
        }
    }

    private func handleSend(_ m: [UInt8], _ v: SendView, from s: Session, sender: Bytes32) {
        metrics.frame(.in, v.deliveryClass, bytes: m.count)
        switch v.deliveryClass {
        case .live: forwardLive(m, v, from: s, sender: sender)
        case .mail: storeMail(m, v, from: s, sender: sender)
        }
    }
}
