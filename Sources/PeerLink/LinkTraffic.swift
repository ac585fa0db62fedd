import Basics
import Glibc
import Signing
import Transport
import RelayWire

// Frames in and out of an open link (loop thread only, like the rest of LinkCore).
extension LinkCore {
    func received(_ message: WebSocketMessage) {
        lastHeard = .now
        guard case .binary(let bytes) = message else {
            lose(why: "text message from the relay", send: .error(.init(code: .protocolViolation, text: "text message")))
            return
        }
        let frame: RelayFrame
        do { frame = try RelayFrame.decode(bytes) } catch {
            lose(why: "malformed frame: \(error)", send: .error(.init(code: error.relayErrorCode, text: error.description)))
            return
        }
        guard let action = phase.handle(frame) else { return }
        perform(action)
    }

    private func perform(_ action: SessionAction) {
        switch action {
        case .none: return
        case .send(let frame): send(frame)
        case .sendAll(let frames): frames.forEach(send)
        case .authenticated(let ok): authenticated(ok)
        case .deliver(let r): deliver(r)
        case .answer(let id, let answer): answered(id, answer)
        case .pong(let value): ponged(value)
        case .queueEmpty: inbound.yield(.queueEmpty)
        case .peerGone(let g):
            peerGoneHook.call(g.peer, g.reason)
            inbound.yield(.peerGone(g.peer, g.reason))
        case .restarting(let ms): relayRestarting(ms)
        case .refuse(let refusal, let frame): refuse(refusal, send: frame)
        case .drop(let why, let frame): lose(why: why, send: frame)
        }
    }

    func send(_ frame: RelayFrame) {
        guard let ws = phase.socket, let bytes = try? frame.encode() else { return }
        ws.send(binary: bytes)
    }

    // MARK: live

    func sendLive(to recipient: Bytes32, payload: [UInt8], completion: @escaping LiveCompletion) {
        guard payload.count <= Limits.maxSealed else {
            completion(.failed(.tooLarge(field: "payload", length: payload.count, limit: Limits.maxSealed)))
            return
        }
        // Never held for a reconnect: the guest falls back at once on this.
        guard isOpen, let ws = phase.socket else { completion(.failed(finished ? .stopped : .linkDown)); return }
        let id = newFrameID()
        let frame = RelayFrame.send(.init(recipient: recipient, deliveryClass: .live, frameID: id, ttlSeconds: 0, sealed: payload))
        guard let bytes = try? frame.encode() else { completion(.failed(.linkDown)); return }
        ws.send(binary: bytes)
        live.add(id, seq: nextPing, completion)
        // One barrier ping per loop turn settles every live frame sent in that turn.
        guard !barrierQueued else { return }
        barrierQueued = true
        let attempt = attempts
        loop.execute { [self] in
            guard phase.mayFire(.openTimer(attempt)) else { return }
            barrierQueued = false
            sendPing()
        }
    }

    func sendPing() {
        let value = nextPing
        nextPing += 1
        send(.ping(value))
        guard !live.isEmpty else { return }
        let attempt = attempts
        let timer = loop.schedule(after: configuration.liveTimeout) { [self] in
            guard phase.mayFire(.openTimer(attempt)) else { return }
            liveTimers.removeAll { $0.seq <= value }
            for c in live.resolve(through: value) { c(.failed(.timeout)) }
        }
        liveTimers.append((value, timer))
    }

    private func ponged(_ value: UInt64) {
        while let first = liveTimers.first, first.seq <= value {
            loop.cancel(first.timer)
            liveTimers.removeFirst()
        }
        for c in live.resolve(through: value) { c(.sent) }
    }

    private func answered(_ id: Bytes16, _ answer: RelayAnswer) {
        switch answer {
        case .notHere: live.resolve(id)?(.notHere)
        case .dropped: live.resolve(id)?(.dropped)
        case .stored: outbox.remove(id)?(.success(.stored))
        case .mailboxFull: outbox.remove(id)?(.success(.mailboxFull))
        }
    }

    // MARK: mail

    func sendMail(_ id: Bytes16, frame: [UInt8], completion: @escaping MailCompletion) {
        guard !finished else { completion(.failure(PeerLinkError.stopped)); return }
        guard outbox.add(id, frame: frame, completion) else {
            completion(.failure(PeerLinkError.outboxFull(limit: outbox.capacity)))
            return
        }
        if isOpen { phase.socket?.send(binary: frame) }
    }

    /// The caller's task was cancelled: stop waiting (the relay may still store it).
    func cancelMail(_ id: Bytes16) {
        outbox.remove(id)?(.failure(CancellationError()))
    }

    // MARK: inbound

    private func deliver(_ r: RelayFrame.Receive) {
        let key = DedupeSet.Key(sender: r.sender, frameID: r.frameID)
        switch dedupe.lookup(key) {
        case .acked:
            // Delivered again: our ack was lost (a relay restart). Ack again, do not yield twice.
            if r.deliveryClass == .mail { send(.ack(frameID: r.frameID)) }
        case .pending:
            return // the consumer holds it and will ack it
        case .new:
            let item = Inbound(sender: r.sender, deliveryClass: r.deliveryClass,
                               frameID: r.frameID, heldMs: r.heldMs, payload: r.sealed,
                               receivedAt: .now, receivedAtWallMs: UInt64(clamping: wallClockMs()))
            switch inbound.yield(.frame(item)) {
            case .enqueued:
                dedupe.insert(key, acked: r.deliveryClass == .live) // live is never acked
            case .dropped:
                log("inbound buffer full: a \(r.deliveryClass) frame was not delivered")
            case .terminated:
                return
            @unknown default:
                return
            }
        }
    }

    /// The consumer has durably processed a mail frame.
    func ack(sender: Bytes32, frameID: Bytes16) {
        dedupe.markAcked(.init(sender: sender, frameID: frameID))
        // If the link is down the relay keeps the frame and delivers it again; the dedupe entry
        // (acked) then answers that delivery with an ack.
        if isOpen { send(.ack(frameID: frameID)) }
    }
}

/// 16 random bytes (libsodium's CSPRNG): a frame id.
func newFrameID() -> Bytes16 { Bytes16(unchecked: randomBytes(count: Bytes16.count)) }
