import PeerLink
import Sealing
import Signing
import Wire

// The inbound path: one frame at a time, on the Courier's inbound task.
//
// Mail that is dropped here (unknown sender, open failure, replay, malformed, refused or
// expired part, over a part budget or the introduction rate) is acked at once: it can never
// become useful, the relay would otherwise keep it until its TTL, and PeerLink's dedupe would
// hide its redelivery from us anyway. Mail that is delivered waits for `Delivery.ack()`; mail
// the replay store could not check is left unacked (the relay delivers it again).

extension Courier {
    func handle(_ frame: Inbound) {
        guard let payload = SealedPayload.classify(frame.payload) else {
            count(\.unknownPayloads, dropping: frame)
            return
        }
        switch payload {
        case .streamChunk(let streamID, let chunk):
            switch replies.chunk(streamID: streamID, from: frame.sender, bytes: chunk) {
            case .delivered: break
            case .failed: count(\.chunkFailures, dropping: nil)
            case .unexpected: count(\.unexpectedChunks, dropping: nil)
            case .overflow: count(\.bufferOverflows, dropping: nil)
            }
            link.ack(frame)  // chunks travel live (no-op); a mailed one is consumed all the same
        case .envelope(let bytes):
            guard let record = directory.record(for: frame.sender) else {
                if hold(frame) { return }  // a roster later in the backlog may name it
                count(\.droppedUnknownSender, dropping: frame)
                return
            }
            open(bytes, from: record, frame: frame)
        case .introduction(let bytes):
            handleIntroduction(bytes, frame: frame)
        }
    }

    private func open(_ bytes: [UInt8], from record: DeviceRecord, frame: Inbound) {
        let now = configuration.now()
        // A live frame's store check is taken out of the open: a request's runs on the commit
        // thread (`ReplayCommit`), anything else's below, before it is acted on.
        let deferring = frame.deliveryClass == .live
        let opening = counting(nil) { s -> (OpenedMessage, StoreCheck?) in
            s.replay.deferring = deferring
            defer { s.replay.deferring = false; s.replay.pending = nil }
            let o = try Envelope.open(bytes, by: identity, from: record, replay: &s.replay, now: now)
            if s.replay.pending == nil { s.stats.opened += 1 }  // checked in memory: counted here
            return (o, s.replay.pending)
        }
        let opened: OpenedMessage, check: StoreCheck?
        switch opening {
        case .opened(let o): (opened, check) = o
        case .refused: link.ack(frame); return
        case .retry: return  // the replay store failed: unacked, the relay delivers it again
        }
        guard let message = decode(opened.body, frame: frame) else { return }
        var commit: ReplayCommit?
        var replyCheck: StoreCheck?
        if let check {
            if case .request = message {
                commit = ReplayCommit(check) { [weak self] verdict in self?.countCommit(verdict) }
            } else if ReplyRegistry.requestID(ofReply: message) != nil {
                // A live reply is checked in memory before anything sees it; its store commit
                // follows off this path once a waiting request took it (`dispatch`).
                guard acceptInMemory(check) else { count(\.replays, dropping: frame); return }
                replyCheck = check
            } else {
                switch commitNow(check) {
                case .accepted: break
                case .replayed: link.ack(frame); return
                case .storeFailed: return
                }
            }
        }
        if case .part(let part) = message {
            collect(part, opened: opened, record: record, frame: frame, nowMs: now)
        } else {
            dispatch(message, record: record, messageID: opened.messageID, secret: opened.streamSecret,
                     frame: frame, frames: [frame], replayCommit: commit, replyCheck: replyCheck)
        }
    }

    /// A live reply's check against this process's replay state, in memory (`ReplayBook`, the
    /// store's rules). Enough before a waiting request acts on it: the request's id and stream
    /// secret are fresh in this process (`Courier.sendAwaitingReplies`), so only a copy heard
    /// in this process, which the book holds, could reach it; the store's verdict still counts.
    private func acceptInMemory(_ check: StoreCheck) -> Bool {
        inbound.withLock { s in
            (try? s.replay.memory.accept(check.id, timestamp: check.timestamp, from: check.sender, now: check.now)) != nil
        }
    }

    /// A store check run here and now, counted as the open's outcome.
    private func commitNow(_ check: StoreCheck) -> ReplayCommit.Verdict {
        let verdict = ReplayCommit.run(check)
        countCommit(verdict)
        return verdict
    }

    /// A store check's verdict in the counters: `opened`, `replays` or `replayStoreFailures`.
    func countCommit(_ verdict: ReplayCommit.Verdict) {
        inbound.withLock { s in
            switch verdict {
            case .accepted: s.stats.opened += 1
            case .replayed: s.stats.replays += 1
            case .storeFailed: s.stats.replayStoreFailures += 1
            }
        }
    }

    private func collect(_ part: AppMessage.Part, opened: OpenedMessage, record: DeviceRecord, frame: Inbound, nowMs: UInt64) {
        sweep(nowMs: nowMs)
        let own = directory.isOwnDevice(record.signingKey)
        let outcome = inbound.withLock { $0.parts.add(part, opened: opened, frame: frame, nowMs: nowMs, own: own) }
        switch outcome {
        case .pending:
            return
        case .refused:
            count(\.partsRefused, dropping: frame)
        case .overBudget:
            count(\.partsOverBudget, dropping: frame)
        case .complete(let whole):
            inbound.withLock { $0.stats.partsReassembled += 1 }
            let message: AppMessage
            do { message = try AppMessage.decode(whole.bytes) } catch {
                whole.frames.forEach(link.ack)
                count(\.malformed, dropping: nil)
                return
            }
            if case .part = message {  // a part inside parts: never
                whole.frames.forEach(link.ack)
                count(\.malformed, dropping: nil)
                return
            }
            dispatch(message, record: record, messageID: whole.messageID, secret: whole.streamSecret,
                     frame: frame, frames: whole.frames)
        }
    }

    /// A reply goes to its request's stream; anything else to `deliveries`.
    private func dispatch(_ message: AppMessage, record: DeviceRecord, messageID: MessageID, secret: SecretBytes,
                          frame: Inbound, frames: [Inbound], replayCommit: ReplayCommit? = nil,
                          replyCheck: StoreCheck? = nil) {
        if case .unknown = message {  // a type this version does not know: skipped
            frames.forEach(link.ack)
            return
        }
        let result = replies.reply(message, from: record.signingKey)
        if let replyCheck {
            if result == .notAReply {
                // No request of ours waits for it: it goes to `deliveries` only once the store accepted it.
                switch commitNow(replyCheck) {
                case .accepted: break
                case .replayed: frames.forEach(link.ack); return
                case .storeFailed: return
                }
            } else {
                _ = ReplayCommit(replyCheck) { [weak self] verdict in self?.countCommit(verdict) }
            }
        }
        switch result {
        case .delivered: frames.forEach(link.ack); return
        case .late: frames.forEach(link.ack); count(\.lateReplies, dropping: nil); return
        case .overflow: frames.forEach(link.ack); count(\.bufferOverflows, dropping: nil); return
        case .notAReply: break
        }
        var isRequest = false
        if case .request = message { isRequest = true }
        let delivery = Delivery(message: message, sender: record, messageID: messageID, heldMs: frame.heldMs,
                                receivedAtMs: frame.receivedAtWallMs, streamSecret: isRequest ? secret : nil,
                                deliveryClass: frame.deliveryClass, frameID: frame.frameID,
                                acker: frame.deliveryClass == .mail ? Acker(link: link, frames: frames) : nil,
                                receivedAt: frame.receivedAt, replayCommit: replayCommit)
        if case .dropped = deliverySink.yield(delivery) { count(\.bufferOverflows, dropping: nil) }
    }

    /// Drops incomplete messages past their deadline (and acks their mail frames).
    func sweep(nowMs: UInt64) {
        let frames = inbound.withLock { s in
            let expired = s.parts.expire(nowMs: nowMs)
            s.stats.partsExpired += expired.count
            return expired.frames
        }
        frames.forEach(link.ack)
    }

    /// What became of one open: opened, refused for good (ack it), or not checked (keep it).
    enum Opening<T> {
        case opened(T)
        case refused
        case retry
    }

    /// Runs one open under the inbound lock and counts its outcome: `counter` when it opened,
    /// `replays`, `openFailed` or `replayStoreFailures` when not.
    func counting<T>(_ counter: WritableKeyPath<CourierStats, Int>?,
                     _ open: (inout InboundState) throws -> T) -> Opening<T> {
        inbound.withLock { s in
            do {
                let m = try open(&s)
                if let counter { s.stats[keyPath: counter] += 1 }
                return .opened(m)
            } catch SealingError.replayed {
                s.stats.replays += 1
            } catch CourierError.replayStore {
                s.stats.replayStoreFailures += 1
                return .retry
            } catch {
                s.stats.openFailed += 1
            }
            return .refused
        }
    }

    /// The opened bytes as a message; malformed ones are counted and their frame acked (nil).
    func decode(_ body: [UInt8], frame: Inbound) -> AppMessage? {
        do { return try AppMessage.decode(body) } catch {
            count(\.malformed, dropping: frame)
            return nil
        }
    }

    /// Counts one event; acks `frame` (a no-op for live) since it is dropped for good.
    func count(_ counter: WritableKeyPath<CourierStats, Int>, dropping frame: Inbound?) {
        inbound.withLock { $0.stats[keyPath: counter] += 1 }
        if let frame { link.ack(frame) }
    }
}
