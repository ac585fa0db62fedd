import Basics
import RelayCluster
import RelayWire

/// Mail across nodes: a JetStream stream (replicas, file storage, work-queue retention) holds it;
/// `stored` is answered only after the stream's ack. A refused, failed or timed-out publish is
/// `mailbox-full`: the sender keeps the frame. Delivery: the recipient's durable pull consumer,
/// fetched when it connects to any node and whenever a node stores mail for it.
enum ClusterStoreOutcome {
    case published(NatsConnection.PublishOutcome)
    case refused(MailRefusal)
}

extension Hub {
    func clusterStoreMail(_ c: ClusterNode, _ m: [UInt8], _ v: SendView, from s: Session, sender: Bytes32) {
        // Fails closed while the link is down: never published to libnats' reconnect buffer.
        guard c.nats.state == .connected else {
            c.metrics.mailRefused += 1
            metrics.mail(.refusedFull)
            s.control(.mailboxFull(frameID: v.frameID))
            return
        }
        let now = wallClockMs()
        let ttlMs = v.ttlSeconds == 0 ? config.mailTTL.milliseconds : min(Int64(v.ttlSeconds) * 1000, config.maxTTL.milliseconds)
        let collapse = Array(m[v.collapseKey]), size = v.sealed.count, sealed = m[v.sealed]
        let tail = ClusterSubjects.tail(from: sender, frameID: v.frameID, collapseKey: collapse)
        let id = ClusterSubjects.messageID(to: v.recipient, from: sender, frameID: v.frameID)
        let nats = c.nats, stream = c.config.mailStream, seenStream = c.seenStream, quotas = mailbox.quotas, recipient = v.recipient
        let waitMs = c.config.publishTimeout.milliseconds, frameID = v.frameID, serial = c.serial(of: s)
        var account: Bytes32?
        if case .authenticated(let p) = s.state { account = p.account }
        let senderAccount = ClusterSubjects.accountHash(account)
        let ref = HubRef(self)
        c.work.async {
            let started = monotonicNanos()
            let outcome: Result<ClusterStoreOutcome, ClusterError> = Result { () throws(ClusterError) in
                // The quotas, read before publishing (concurrent senders may overshoot by their number in flight).
                var expires = now + ttlMs
                let seen = try nats.lastMessage(stream: seenStream, subject: ClusterSubjects.seen(recipient))
                if seen == nil {
                    guard quotas.unseenTTLMs > 0 else { return .refused(.unseenRecipient) }
                    expires = min(expires, now + quotas.unseenTTLMs)
                }
                let recipientAccount = seen.flatMap { $0.isEmpty ? nil : $0 }
                let subject = ClusterSubjects.mail(to: recipient, from: sender, frameID: frameID, collapseKey: collapse, size: size, expiresMs: expires)
                let sh = ClusterSubjects.keyHash(sender)
                let use = ClusterMailboxUse(try nats.subjects(stream: stream, filter: ClusterSubjects.mailbox(recipient)), sender: sh, tail: tail, nowMs: now)
                let sent = use.collapsed.isEmpty ? ClusterMailboxUse(try nats.subjects(stream: stream, filter: ClusterSubjects.sentBy(sender)), sender: sh, tail: nil, nowMs: now) : nil
                if let why = use.refusal(size: size, sent: sent, quotas: quotas, ownAccount: recipientAccount != nil && recipientAccount == senderAccount,
                                         recipientHasAccount: recipientAccount != nil) { return .refused(why) }
                let payload = StoredMail.encode(expiresMs: expires, storedMs: now, sender: sender, frameID: frameID, sealed: sealed)
                let o = try nats.publishDurable(subject, payload, messageID: id, maxWaitMs: waitMs)
                // Collapse: the sender's older frame under this key (another size, another subject) goes.
                // A failed purge leaves it: both delivered, the newer last (the sender was told stored either way).
                if o == .stored { for old in use.collapsed where old != subject { try? nats.purge(stream: stream, subject: old) } }
                return .published(o)
            }
            if case .success(.published(.stored)) = outcome {
                try? nats.publish(ClusterSubjects.device(recipient), ClusterMessage.mailWaiting.encode())
            }
            let ms = Double(monotonicNanos() - started) / 1e6
            ref.onLoop { hub in hub.clusterStored(outcome, frameID: frameID, serial: serial, ms: ms) }
        }
    }

    private func clusterStored(_ outcome: Result<ClusterStoreOutcome, ClusterError>, frameID: Bytes16, serial: UInt64, ms: Double) {
        guard let c = cluster else { return }
        let s = c.session(serial: serial)
        switch outcome {
        case .success(.published(let o)):
            c.metrics.publishMsSum += ms
            c.metrics.publishCount += 1
            if o == .duplicate { c.metrics.mailDuplicate += 1; metrics.mail(.duplicate) } else { c.metrics.mailPublished += 1; metrics.mail(.stored) }
            s?.control(.stored(frameID: frameID))
        case .success(.refused(let why)):
            metrics.mail(.refusedFull)
            metrics.mailRefused[why, default: 0] += 1
            s?.control(.mailboxFull(frameID: frameID))
        case .failure(let e):
            c.metrics.mailRefused += 1
            metrics.mail(.refusedFull)
            if c.metrics.mailRefused % 100 == 1 { log.warn("cluster: mail not stored (\(e)); answered mailbox-full") }
            s?.control(.mailboxFull(frameID: frameID))
        }
    }

    /// Fetches what the recipient's consumer has (one fetch at a time per device, off the loop).
    func clusterPump(_ c: ClusterNode, _ s: Session) {
        guard case .authenticated = s.state, let d = c.device(s), !d.joining else { return }
        if d.fetching { d.fetchAgain = true; return }
        let room = min(s.queue.maxFrames - s.queue.count, Self.pumpBatch)
        guard room > 0 else { s.updatePeer { $0.mailWaiting = true }; return }
        d.fetching = true
        d.fetchAgain = false
        let nats = c.nats, cfg = c.config, key = d.key, slot = d.mail, serial = d.serial, ref = HubRef(self)
        let maxAck = max(config.sendQueueFrames, config.mailboxMaxFrames), held = d.acks.count
        d.queue.async {
            let got: Result<[StoredMessage], ClusterError> = Result { () throws(ClusterError) in
                if slot.closed { return [] }
                if slot.consumer == nil {
                    slot.consumer = try nats.pullConsumer(stream: cfg.mailStream, filter: ClusterSubjects.mailbox(key),
                                                          durable: ClusterSubjects.consumer(key), ackWaitMs: cfg.ackWait.milliseconds,
                                                          maxAckPending: maxAck, inactiveMs: cfg.consumerInactive.milliseconds)
                }
                return try slot.consumer!.fetch(batch: room, held: held)
            }
            ref.onLoop { hub in hub.clusterFetched(got, serial: serial, batch: room) }
        }
    }

    private func clusterFetched(_ got: Result<[StoredMessage], ClusterError>, serial: UInt64, batch: Int) {
        guard let c = cluster, let s = c.session(serial: serial), let d = c.device(s) else { return }
        d.fetching = false
        let messages: [StoredMessage]
        switch got {
        case .success(let m): messages = m
        case .failure(let e):
            // Retried after the reconnect wait while the device stays (an election, a reconnect;
            // mail still held: delivered to a fetch that timed out, back after the ack wait).
            if case .mailRemains = e { c.metrics.fetchRetried += 1 } else { log.warn("cluster: mail fetch failed (\(e)); retrying in \(c.config.natsReconnectWait.settingText)") }
            s.updatePeer { $0.mailWaiting = true }
            loop.schedule(after: c.config.natsReconnectWait) { [weak self] in
                guard let self, let c = self.cluster, let s = c.session(serial: serial) else { return }
                self.clusterPump(c, s)
            }
            return
        }
        let now = wallClockMs()
        var full = false
        for m in messages {
            guard let mail = StoredMail.decode(m.data) else { try? c.nats.ack(m.ackSubject); continue }
            if mail.expiresMs <= now || full {
                if full { try? c.nats.publish(m.ackSubject, Array("-NAK".utf8)) } // back to the stream, delivered later
                else { try? c.nats.ack(m.ackSubject); c.metrics.mailExpired += 1; metrics.mail(.expired) }
                continue
            }
            let frame = ForwardCodec.receive(sender: mail.sender, deliveryClass: .mail, frameID: mail.frameID,
                                             heldMs: UInt64(max(0, now - mail.storedMs)), sealed: mail.sealed)
            guard deliver(frame, to: s) else { full = true; try? c.nats.publish(m.ackSubject, Array("-NAK".utf8)); continue }
            d.acks[mail.frameID] = m.ackSubject
            c.metrics.mailFetched += 1
            metrics.mail(.delivered)
            metrics.frame(.out, .mail, bytes: frame.count)
        }
        s.updatePeer { $0.mailWaiting = full }
        if full { return }
        if messages.count >= batch || d.fetchAgain { clusterPump(c, s); return }
        guard case .authenticated(let p) = s.state, p.backlogPending else { return }
        s.updatePeer { $0.backlogPending = false }
        deliver(ForwardCodec.control(.queueEmpty), to: s, force: true)
    }

    /// The device's ack: the stream deletes that frame (work-queue retention).
    func clusterAck(_ c: ClusterNode, _ id: Bytes16, from s: Session) {
        guard let d = c.device(s), let subject = d.acks.removeValue(forKey: id) else { return }
        do {
            try c.nats.ack(subject)
            c.metrics.mailAcked += 1
            metrics.mail(.acked)
        } catch {
            log.warn("cluster: ack not sent (\(error)); the frame will be delivered again")
        }
    }
}
