import Basics
import Transport
import RelayWire

/// The relay's state, owned by the event loop: every connection, the routing table
/// (device key -> session), the mailbox, admission, limits and counters. No locks: loop thread only.
final class Hub {
    let config: RelayConfig
    /// The origin in every challenge; set once the port is bound (port 0 picks one).
    var origin: String
    let loop: EventLoop
    let log: Logger
    let mailbox: Mailbox
    let admission: Admission
    // Unchecked exclusivity, on these few loop-confined values only: each is changed only by
    // its own mutating methods, which call out to nothing (no callback, no closure), so two
    // accesses can never overlap and the runtime check (~80 instructions per access, a dozen
    // accesses per forwarded frame) could never fire. Not for state a callback may touch.
    @exclusivity(unchecked) var limiter: RateLimiter<Bytes32>
    /// Failed auths per client address: beyond the bucket, `auth-refused rate-limited`.
    var authFailures: RateLimiter<String>
    @exclusivity(unchecked) var metrics = Metrics()
    /// The listener's per-address counters, read at scrape time (set by `Relay`).
    var listenerStats: () -> Metrics.ListenerStats = { .init() }
    /// Every open connection, authenticated or not.
    private(set) var connections: [ObjectIdentifier: Session] = [:]
    /// The routing table: one session per authenticated device key.
    private(set) var byKey: [Bytes32: Session] = [:]
    /// Changes with every change of `byKey`: a session's cached route (`route(_:from:)`) is
    /// good while it is the same.
    private(set) var routeGeneration: UInt64 = 0
    /// Routed sessions per account (`Session.Peer.account`): what `account-max-connections` counts.
    private(set) var perAccount: [Bytes32: Int] = [:]
    var shuttingDown = false
    /// The relay as a cluster (ClusterNode.swift); nil on a single node.
    var cluster: ClusterNode?

    init(config: RelayConfig, loop: EventLoop, log: Logger, mailbox: Mailbox, admission: Admission) {
        self.config = config
        origin = config.effectiveOrigin
        self.loop = loop; self.log = log; self.mailbox = mailbox; self.admission = admission
        limiter = RateLimiter(rate: config.rate, burst: config.burst)
        authFailures = RateLimiter(rate: config.limits.authFailureRate, burst: config.limits.authFailureBurst)
    }

    var authenticatedCount: Int { byKey.count }
    var connectionCount: Int { connections.count }

    /// A new WebSocket: wire its callbacks, send the challenge.
    func accept(_ ws: WebSocket) {
        if shuttingDown { ws.close(code: .goingAway, reason: "relay restarting"); return }
        let s = Session(ws: ws, queue: SendQueue(maxFrames: config.sendQueueFrames, maxBytes: config.sendQueueBytes), now: monotonicNanos())
        connections[ObjectIdentifier(s)] = s
        metrics.connectionsAccepted += 1
        ws.onMessage = { [weak self, unowned s] _, m in self?.received(m, on: s) }
        ws.onPong = { [weak self, unowned s] _, _ in self?.heard(s) }
        ws.onDrain = { [weak self, unowned s] _ in self?.flush(s) }
        ws.onClose = { [weak self, unowned s] _, code, reason in self?.closed(s, code: code, reason: reason) }
        sendChallenge(s)
        armIdle(s)
    }

    /// Makes `s` the route for its key; an older connection of the same key is told and closed.
    /// `account`: the account key of a verified account proof (mail quotas reserve room for it).
    func register(_ s: Session, key: Bytes32, account: Bytes32? = nil) {
        s.state = .authenticated(Session.Peer(key: key, account: account))
        s.control(.authOK(.init(serverTimeMs: UInt64(wallClockMs()), mailboxCapacity: UInt32(clamping: config.mailboxMaxFrames),
                                maxTTLSeconds: UInt32(clamping: config.maxTTL.milliseconds / 1000))))
        if let old = byKey[key], old !== s {
            metrics.replaced += 1
            log.info("replaced key=\(shortKey(key)) old=\(old.peer) new=\(s.peer)")
            fail(old, .replaced, "a newer connection authenticated with this device key")
        }
        byKey[key] = s
        routeGeneration &+= 1
        if let account { perAccount[account, default: 0] += 1 }
        s.ws.connection.markEstablished()
        do { try mailbox.markSeen(key, account: account, nowMs: wallClockMs()) } catch { log.error("\(error)") }
        metrics.authSuccesses += 1
        log.info("auth ok key=\(shortKey(key)) peer=\(s.peer)")
        pumpMail(s)
    }

    /// Sends `error` and closes; the session stops being a route at once.
    func fail(_ s: Session, _ code: RelayErrorCode, _ text: String) {
        guard !s.isClosing else { return }
        unroute(s, gone: Self.goneReason(code))
        s.queue.removeAll()
        s.control(.error(.init(code: code, text: text)))
        s.state = .closing
        s.ws.close(code: code == .replaced || code == .shuttingDown ? .normal : .policyViolation, reason: text)
        if code != .replaced { log.info("closing \(s.name): \(text)") }
    }

    /// The connection is gone (any cause).
    private func closed(_ s: Session, code: WebSocketCloseCode, reason: String) {
        if case .awaitingAuth(_, let t) = s.state { loop.cancel(t) }
        if let t = s.idleTimer { loop.cancel(t) }
        if let t = s.probeTimer { loop.cancel(t); s.probeTimer = nil }
        s.probe = nil; s.probeWaiting = []
        s.lastRoute = nil
        cluster?.remove(s)
        unroute(s)
        connections[ObjectIdentifier(s)] = nil
        s.state = .closing
        s.queue.removeAll()
        log.debug("closed \(s.name) code=\(code.rawValue) \(reason)")
    }

    /// `gone`: the reason told to its recent correspondents (`peer-gone`); nil tells none
    /// (the relay is shutting down: everyone hears `restarting`).
    func unroute(_ s: Session, gone: PeerGoneReason? = .closed) {
        cluster?.remove(s)
        guard let k = s.key, byKey[k] === s else { return }
        byKey[k] = nil
        routeGeneration &+= 1
        if let gone { announceGone(s, key: k, reason: gone) }
        if case .authenticated(let peer) = s.state, let a = peer.account {
            let left = (perAccount[a] ?? 0) - 1
            perAccount[a] = left > 0 ? left : nil
        }
    }

    /// Queues or writes a data frame for `s`; false when its queue is full (the frame is dropped).
    @discardableResult
    func deliver(_ frame: [UInt8], to s: Session, force: Bool = false) -> Bool {
        if s.queue.isEmpty && s.ws.queuedBytes <= config.socketBufferBytes {
            s.ws.send(binary: frame)
            return true
        }
        return s.queue.push(frame, force: force)
    }

    /// As `deliver(_:to:)` for the `receive` of a live `send`: straight to the socket, its
    /// header written on the stack and the sealed bytes sent as a slice of `v`'s message; built
    /// as one array only when it has to wait in the send queue.
    func deliverLive(_ v: SendView, sender: Bytes32, to s: Session) -> Bool {
        let headCount = ForwardCodec.receiveHeaderSize
        let tail = v.message[v.sealed]
        if s.queue.isEmpty && s.ws.queuedBytes <= config.socketBufferBytes {
            s.ws.send(binary: tail, headCount: headCount) {
                ForwardCodec.writeReceiveHeader(into: $0, sender: sender, deliveryClass: .live, send: v, heldMs: 0)
            }
            return true
        }
        guard s.queue.hasRoom(for: headCount + tail.count) else { return false }
        return s.queue.push(ForwardCodec.receive(sender: sender, deliveryClass: .live, frameID: v.frameID, heldMs: 0, sealed: tail))
    }

    /// The socket drained: move queued frames down, then any mail that was waiting for room.
    func flush(_ s: Session) {
        while s.ws.queuedBytes <= config.socketBufferBytes, let f = s.queue.pop() { s.ws.send(binary: f) }
        if case .authenticated(let p) = s.state, p.mailWaiting || p.backlogPending { pumpMail(s) }
    }

    /// A live `send`: at once to the connected recipient, else `not-here` to the sender at once.
    func forwardLive(_ m: [UInt8], _ v: SendView, from s: Session, sender: Bytes32) {
        guard let target = route(v, from: s) else {
            if let c = cluster {
                let frame = ForwardCodec.receive(sender: sender, deliveryClass: .live, frameID: v.frameID, heldMs: 0, sealed: m[v.sealed])
                clusterForward(c, frame, v, from: s)
                return
            }
            metrics.notHere += 1
            s.control(.notHere(frameID: v.frameID))
            return
        }
        let idle = socketIdle(target)
        if deliverLive(v, sender: sender, to: target) {
            metrics.frame(.out, .live, bytes: ForwardCodec.receiveHeaderSize + v.sealed.count)
            noteExchange(s, sender, target, now: s.lastHeard)
            probeIfQuiet(target, sender: sender, send: v, now: s.lastHeard, socketIdle: idle)
        } else {
            metrics.drop(.receiverSlow)
            s.control(.dropped(frameID: v.frameID))
        }
    }

    /// The recipient's session. The sender's last route is reused while the routing table is
    /// unchanged and the frame names the same key (compared in place): a steady exchange hashes
    /// no key and cuts none from the frame.
    func route(_ v: SendView, from s: Session) -> Session? {
        if let r = s.lastRoute, r.generation == routeGeneration, v.names(r.key) { return r.target }
        let key = v.recipient
        guard let t = byKey[key] else { return nil }
        s.lastRoute = Session.Route(generation: routeGeneration, key: key, target: t)
        return t
    }

    /// Keep-alive pings for every connection at once (one timer, not one per peer). The idle
    /// cut-off is each connection's own deadline (`armIdle`), exact rather than on this sweep.
    func pingAll() {
        let now = monotonicNanos()
        for s in connections.values where !s.isClosing { s.ws.ping() }
        limiter.prune(now: now)
        authFailures.prune(now: now)
    }

    /// SIGTERM: tell every device to come back later, then close every connection.
    func shutdown(reconnectAfter: Duration) {
        shuttingDown = true
        let ms = UInt32(clamping: reconnectAfter.milliseconds)
        for s in connections.values where !s.isClosing {
            unroute(s, gone: nil)
            s.control(.restarting(reconnectAfterMs: ms))
            s.state = .closing
            s.ws.close(code: .goingAway, reason: "relay restarting")
        }
    }

    func gauges() -> Metrics.Gauges {
        var g = Metrics.Gauges()
        g.connections = connections.count
        g.authenticated = byKey.count
        for s in connections.values {
            g.queuedFrames += s.queue.count
            g.queuedBytes += s.queue.bytes
            g.socketQueuedBytes += s.ws.queuedBytes
        }
        if let t = try? mailbox.totals() { g.storedMail = t.frames; g.storedMailBytes = t.bytes }
        g.listener = listenerStats()
        return g
    }
}
