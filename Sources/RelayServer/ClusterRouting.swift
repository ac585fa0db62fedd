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
                d.joining = false
                switch result {
                case .success: hub.register(s, key: key, account: account)
                case .failure(let e): hub.clusterRefuse(s, e)
                }
            }
        }
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
            if d.joining || byKey[d.key] !== s { answer = .notHere }
            else if deliver(frame, to: s) {
                answer = nil
                c.metrics.liveDelivered += 1
                metrics.frame(.out, .live, bytes: frame.count)
            } else {
                metrics.drop(.receiverSlow)
                answer = .dropped
            }
            if let answer, let reply = m.reply { try? c.nats.publish(reply, [answer.rawValue]) }
        case let .claim(authMs, node):
            // Our own claim comes back (echo); on this node the hub's table settles it.
            // Elsewhere: the newer authentication stays (node name breaks a tie).
            guard node != c.node, authMs > d.authMs || (authMs == d.authMs && node > c.node) else { return }
            c.metrics.claimsReplaced += 1
            metrics.replaced += 1
            log.info("replaced key=\(shortKey(d.key)) by node \(node)")
            c.remove(s)
            fail(s, .replaced, "a newer connection authenticated with this device key on another relay node")
        case .mailWaiting:
            clusterPump(c, s)
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
