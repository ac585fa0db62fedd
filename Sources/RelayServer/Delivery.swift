import Basics
import RelayWire

/// Mail: stored (committed) before `stored` is answered, delivered in arrival order to the
/// connected recipient as its send queue has room, deleted only on the recipient's `ack`.
extension Hub {
    /// Rows read from the store per query while pumping a backlog.
    static let pumpBatch = 64

    func storeMail(_ m: [UInt8], _ v: SendView, from s: Session, sender: Bytes32) {
        if let c = cluster { clusterStoreMail(c, m, v, from: s, sender: sender); return }
        let now = wallClockMs()
        // ttl 0 asks for the relay's default; longer than max-ttl is shortened (announced in auth-ok).
        let ttlMs = v.ttlSeconds == 0 ? config.mailTTL.milliseconds
                                      : min(Int64(v.ttlSeconds) * 1000, config.maxTTL.milliseconds)
        let result: Mailbox.StoreResult
        do {
            var account: Bytes32?
            if case .authenticated(let p) = s.state { account = p.account }
            result = try mailbox.store(recipient: v.recipient, sender: sender, senderAccount: account, source: s.host, frameID: v.frameID,
                                       collapseKey: Array(m[v.collapseKey]), sealed: m[v.sealed],
                                       nowMs: now, expiresMs: now + ttlMs)
        } catch {
            log.error("\(error)")
            fail(s, .internalError, "the relay could not store this frame")
            return
        }
        switch result {
        case .refused(let why):
            metrics.mail(.refusedFull)
            metrics.mailRefused[why, default: 0] += 1
            if why == .diskBudget, metrics.mailRefused[why, default: 0] % 1000 == 1 { log.warn("mail-disk-budget reached: mail refused, live frames still flow") }
            s.control(.mailboxFull(frameID: v.frameID))
        case .duplicate:
            metrics.mail(.duplicate)
            s.control(.stored(frameID: v.frameID))
        case .stored(let seq, let replaced):
            metrics.mail(.stored)
            if replaced { metrics.mail(.replaced) }
            s.control(.stored(frameID: v.frameID))
            if let r = byKey[v.recipient] {
                newMail(seq: seq, sender: sender, frameID: v.frameID, sealed: m[v.sealed], for: r)
            }
        }
    }

    /// Mail just stored for a connected recipient: straight from memory when it is caught up,
    /// else the pump reads it from the store in order.
    private func newMail(seq: Int64, sender: Bytes32, frameID: Bytes16, sealed: ArraySlice<UInt8>, for r: Session) {
        guard case .authenticated(let p) = r.state else { return }
        if p.backlogPending || p.mailWaiting { pumpMail(r); return }
        let frame = ForwardCodec.receive(sender: sender, deliveryClass: .mail, frameID: frameID, heldMs: 0, sealed: sealed)
        if deliver(frame, to: r) {
            r.updatePeer { $0.mailCursor = seq }
            metrics.mail(.delivered)
            metrics.frame(.out, .mail, bytes: frame.count)
        } else {
            r.updatePeer { $0.mailWaiting = true }
        }
    }

    /// Moves stored mail after the session's cursor into its send queue while there is room;
    /// after the backlog, `queue-empty` (queued behind it, so it arrives after the last frame).
    func pumpMail(_ s: Session) {
        if let c = cluster { clusterPump(c, s); return }
        guard case .authenticated(var p) = s.state else { return }
        defer { if case .authenticated = s.state { s.state = .authenticated(p) } }
        while true {
            let room = s.queue.maxFrames - s.queue.count
            guard room > 0 else { p.mailWaiting = true; return }
            let limit = min(room, Self.pumpBatch)
            let now = wallClockMs()
            let items: [Mailbox.Item]
            do { items = try mailbox.pending(for: p.key, after: p.mailCursor, limit: limit, nowMs: now) } catch {
                log.error("\(error)")
                p.mailWaiting = true
                return
            }
            for item in items {
                let held = UInt64(max(0, now - item.storedMs))
                let frame = ForwardCodec.receive(sender: item.sender, deliveryClass: .mail, frameID: item.frameID,
                                                 heldMs: held, sealed: item.sealed[...])
                guard deliver(frame, to: s) else { p.mailWaiting = true; return }
                p.mailCursor = item.seq
                metrics.mail(.delivered)
                metrics.frame(.out, .mail, bytes: frame.count)
            }
            if items.count < limit { break }
        }
        p.mailWaiting = false
        if p.backlogPending {
            p.backlogPending = false
            deliver(ForwardCodec.control(.queueEmpty), to: s, force: true)
        }
    }

    /// Deletes the acknowledging device's own frame with this id; other keys' mail is untouched.
    func ack(_ id: Bytes16, from s: Session, key: Bytes32) {
        if let c = cluster { clusterAck(c, id, from: s); return }
        do {
            let n = try mailbox.ack(recipient: key, frameID: id)
            metrics.mail(.acked, n)
        } catch {
            log.error("\(error)")
            fail(s, .internalError, "the relay could not record this ack")
        }
    }

    /// Deletes expired mail (the periodic sweep).
    func sweepMail() {
        do {
            let now = wallClockMs()
            try mailbox.forgetSeen(before: now - config.maxTTL.milliseconds)
            let n = try mailbox.sweep(nowMs: now)
            if n > 0 {
                metrics.mail(.expired, n)
                log.info("expired \(n) mail frame(s)")
            }
        } catch {
            log.error("\(error)")
        }
    }
}
