import Basics
import RelayCluster
import RelayWire

/// Live routing across nodes: subject interest is the routing table (docs/CLUSTER.md).
/// A device on this node subscribes to its subject; a live frame for a device not here is
/// published there, and NATS' "no responders" is `not-here` at once, as on one node.
extension Hub {
    /// After the signature and admission: subscribe, claim the key, flush (the server knows the
    /// interest before `auth-ok`), then register as on one node.
    func clusterJoin(_ c: ClusterNode, _ s: Session, key: Bytes32, account: Bytes32?) {
        guard c.nats.state == .connected else {
            fail(s, .internalError, Self.clusterDownText)
            return
        }
        let authMs = wallClockMs()
        let d = c.add(s, key: key, authMs: authMs)
        let ref = HubRef(self), serial = d.serial
        do {
            d.subscription = try c.nats.subscribe(ClusterSubjects.device(key)) { m in
                ref.onLoop { $0.clusterDeviceMessage(m, serial: serial) }
            }
            try c.nats.publish(ClusterSubjects.device(key), ClusterMessage.claim(authMs: authMs, node: c.node).encode())
        } catch {
            clusterRefuse(s, error)
            return
        }
        let nats = c.nats
        c.work.async {
            let result: Result<Void, ClusterError> = Result { () throws(ClusterError) in try nats.flush() }
            ref.onLoop { hub in
                guard let c = hub.cluster, let s = c.session(serial: serial), let d = c.device(s), d.joining else { return }
                switch result {
                case .success:
                    let settle = c.config.joinSettle
                    guard settle > .zero else { hub.clusterJoined(c, s, d, key: key, account: account); return }
                    _ = hub.loop.schedule(after: settle) { [weak hub] in
                        guard let hub, let c = hub.cluster, let s = c.session(serial: serial), let d = c.device(s), d.joining else { return }
                        hub.clusterJoined(c, s, d, key: key, account: account)
                    }
                case .failure(let e): hub.clusterRefuse(s, e)
                }
            }
        }
    }

    /// The join settled: `auth-ok` as on one node, then the live frames that came meanwhile.
    private func clusterJoined(_ c: ClusterNode, _ s: Session, _ d: ClusterNode.Device, key: Bytes32, account: Bytes32?) {
        d.joining = false
        // Claimed again now that the interests had the settle to cross the routes: a node that
        // authenticated the key at the same moment (its first claim and ours crossed) hears it.
        try? c.nats.publish(ClusterSubjects.device(key), ClusterMessage.claim(authMs: d.authMs, node: c.node).encode())
        register(s, key: key, account: account)
        // The cluster's seen record (the SQLite mailbox's `seen` row): mail quotas read it.
        try? c.nats.publish(ClusterSubjects.seen(key), ClusterSubjects.accountHash(account))
        let early = d.early
        d.early = []
        for (frame, reply) in early where !clusterDeliverLive(c, s, frame) {
            if let reply { try? c.nats.publish(reply, [ClusterMessage.Answer.dropped.rawValue]) }
        }
    }

    /// A live frame from another node to device `s`: delivered (its sender noted for `peer-gone`)
    /// or false (the send queue is full).
    private func clusterDeliverLive(_ c: ClusterNode, _ s: Session, _ frame: [UInt8]) -> Bool {
        guard deliver(frame, to: s) else { metrics.drop(.receiverSlow); return false }
        c.metrics.liveDelivered += 1
        metrics.frame(.out, .live, bytes: frame.count)
        let h = RelayFrame.headerSize
        if frame.count >= h + 32, config.peerGoneMemory > 0 {
            s.correspondents.note(Bytes32(unchecked: Array(frame[h..<h + 32])), now: monotonicNanos(), capacity: config.peerGoneMemory)
        }
        return true
    }

    /// The cluster is out of reach: this device is told so and closed (it may try another node).
    func clusterRefuse(_ s: Session, _ e: ClusterError) {
        log.warn("cluster: \(e); closing \(s.peer)")
        cluster?.remove(s)
        fail(s, .internalError, "this relay node cannot reach its cluster; try again or another node")
    }

    /// A live frame for a key not on this node: on its subject, answers to this node's inbox.
    func clusterForward(_ c: ClusterNode, _ frame: [UInt8], _ v: SendView, from s: Session) {
        guard c.nats.state == .connected else {
            metrics.notHere += 1
            s.control(.notHere(frameID: v.frameID))
            return
        }
        let reply = ClusterSubjects.reply(node: c.node, serial: c.serial(of: s), frameID: v.frameID)
        do {
            try c.nats.publish(ClusterSubjects.device(v.recipient), ClusterMessage.live(frame).encode(), reply: reply)
            c.metrics.livePublished += 1
            if config.peerGoneMemory > 0 { s.correspondents.note(v.recipient, now: s.lastHeard, capacity: config.peerGoneMemory) }
        } catch {
            metrics.notHere += 1
            s.control(.notHere(frameID: v.frameID))
        }
    }

    /// Something on the subject of a device of this node.
    func clusterDeviceMessage(_ m: NatsMessage, serial: UInt64) {
        guard let c = cluster, let s = c.session(serial: serial), let d = c.device(s) else { return }
        switch ClusterMessage.decode(m.data) {
        case .live(let frame):
            let answer: ClusterMessage.Answer?
            if d.joining {
                guard d.early.count >= config.sendQueueFrames else { d.early.append((frame, m.reply)); c.metrics.liveHeld += 1; return }
                answer = .dropped
            } else if byKey[d.key] !== s { answer = .notHere }
            else { answer = clusterDeliverLive(c, s, frame) ? nil : .dropped }
            if let answer, let reply = m.reply { try? c.nats.publish(reply, [answer.rawValue]) }
        case let .claim(authMs, node):
            // Our own claim comes back (echo); on this node the hub's table settles it.
            // Elsewhere: the newer authentication stays (node name breaks a tie). An older one
            // heard here is answered with our claim: that node may have missed it (crossed routes).
            guard node != c.node else { return }
            guard authMs > d.authMs || (authMs == d.authMs && node > c.node) else {
                try? c.nats.publish(ClusterSubjects.device(d.key), ClusterMessage.claim(authMs: d.authMs, node: c.node).encode())
                return
            }
            c.metrics.claimsReplaced += 1
            metrics.replaced += 1
            log.info("replaced key=\(shortKey(d.key)) by node \(node)")
            c.remove(s)
            fail(s, .replaced, "a newer connection authenticated with this device key on another relay node")
        case .mailWaiting:
            clusterPump(c, s)
        case let .gone(peer, reason):
            guard !d.joining, byKey[d.key] === s, !s.isClosing else { return }
            deliver(ForwardCodec.control(.peerGone(.init(peer: peer, reason: reason))), to: s, force: true)
            metrics.peerGone[reason.description, default: 0] += 1
        case nil:
            log.warn("cluster: unreadable message on a device subject (\(m.data.count) bytes)")
        }
    }

    /// An answer to a live frame a device of this node sent: no responders or not delivered.
    func clusterReply(_ m: NatsMessage) {
        guard let c = cluster, let (serial, id) = ClusterSubjects.parseReply(m.subject), let s = c.session(serial: serial) else { return }
        if m.noResponders || m.data == [ClusterMessage.Answer.notHere.rawValue] {
            if m.noResponders { c.metrics.noResponders += 1 }
            metrics.notHere += 1
            s.control(.notHere(frameID: id))
        } else if m.data == [ClusterMessage.Answer.dropped.rawValue] {
            s.control(.dropped(frameID: id))
        }
    }
}
