import Signing
import Transport
import RelayWire

typealias LiveCompletion = @Sendable (LiveOutcome) -> Void
typealias MailCompletion = @Sendable (Result<MailOutcome, any Error>) -> Void

/// The link's engine: connection lifecycle, timers, traffic. LOOP THREAD ONLY: `PeerLink`
/// reaches it through `loop.execute`, which is what makes the `@unchecked Sendable` true.
///
/// Every connection attempt gets a new `generation`; callbacks and timers of an older one
/// compare it and do nothing, so a late close or timer can never tear down a newer connection.
final class LinkCore: @unchecked Sendable {
    let loop: EventLoop
    let configuration: PeerLink.Configuration
    let tls: TLSClientContext?
    let makeSession: @Sendable (RelayURL) -> LinkSession
    let orders: @Sendable (String) -> [RelayFrame.AccountOrder]
    let publish: @Sendable (LinkState) -> Void
    let inbound: AsyncStream<InboundEvent>.Continuation

    // Lifecycle.
    var running = false
    var finished = false
    var generation: UInt64 = 0
    var ws: WebSocket?
    var session: LinkSession?
    /// Since when the link has been down (drives the backoff); nil while connected.
    var downSince: ContinuousClock.Instant?
    /// A permanent refusal since the last `auth-ok`: later transient failures wait the maximum.
    var refusedSinceAuth = false
    var retryTimer: TimerHandle?
    var authTimer: TimerHandle?
    var pingTimer: TimerHandle?
    var deadTimer: TimerHandle?
    var lastHeard = ContinuousClock.now
    /// Which of `configuration.dialOrder` the next connection dials; moves on after each failure.
    var dialIndex = 0
    var dialled: RelayURL { let order = configuration.dialOrder; return order[dialIndex % order.count] }

    // Traffic (LinkTraffic.swift).
    var live = LiveLedger<LiveCompletion>()
    var liveTimers: [(seq: UInt64, timer: TimerHandle)] = []
    var outbox: MailOutbox<MailCompletion>
    var dedupe: DedupeSet
    var nextPing: UInt64 = 1
    var barrierQueued = false

    /// Told of each `peer-gone` on the loop thread, in order with the live outcomes (PeerLink.onPeerGone).
    let peerGoneHook = PeerGoneHook()

    init(loop: EventLoop, configuration: PeerLink.Configuration, tls: TLSClientContext?,
         makeSession: @escaping @Sendable (RelayURL) -> LinkSession,
         orders: @escaping @Sendable (String) -> [RelayFrame.AccountOrder], publish: @escaping @Sendable (LinkState) -> Void,
         inbound: AsyncStream<InboundEvent>.Continuation) {
        self.loop = loop; self.configuration = configuration; self.tls = tls
        self.makeSession = makeSession; self.orders = orders; self.publish = publish; self.inbound = inbound
        outbox = MailOutbox(capacity: configuration.outboxCapacity)
        dedupe = DedupeSet(capacity: configuration.dedupeCapacity)
    }

    var isOpen: Bool { ws != nil && session?.isOpen == true }

    func log(_ line: @autoclosure () -> String) { configuration.log?(line()) }

    func start() {
        guard !finished, !running else { return }
        running = true
        downSince = nil
        refusedSinceAuth = false
        if retryTimer == nil { connect() }
    }

    func stop() {
        guard !finished else { return }
        finished = true
        running = false
        closeConnection(send: nil)
        cancel(&retryTimer)
        for c in live.drain() { c(.failed(.stopped)) }
        for c in outbox.drain() { c(.failure(PeerLinkError.stopped)) }
        publish(.stopped)
        inbound.finish()
    }

    /// Closes the connection cleanly and stays down until `start()` (a workstation going to
    /// sleep). Unlike `stop()` it is not final: waiting mail stays in the outbox.
    func suspend() {
        guard !finished, running else { return }
        running = false
        closeConnection(send: nil)
        cancel(&retryTimer)
        publish(.stopped)
    }

    private func connect() {
        guard running, ws == nil else { return }
        generation &+= 1
        let gen = generation
        publish(.connecting)
        WebSocketClient.connect(loop: loop, configuration: configuration.webSocketConfiguration(dialling: dialled, tls: tls)) { [self] result in
            guard gen == generation, running else {
                if case .success(let stale) = result { stale.close() }
                return
            }
            switch result {
            case .success(let socket): attach(socket, gen)
            case .failure(.certificatePinMismatch): refuse(.certificate(TransportError.certificatePinMismatch.description), send: nil)
            case .failure(.tls(let why)): refuse(.certificate(why), send: nil)
            case .failure(let e): lose(why: "connect failed: \(e)", send: nil)
            }
        }
    }

    private func attach(_ socket: WebSocket, _ gen: UInt64) {
        ws = socket
        session = makeSession(dialled)
        lastHeard = .now
        publish(.authenticating)
        authTimer = loop.schedule(after: configuration.authTimeout) { [self] in
            authTimer = nil
            guard gen == generation else { return }
            lose(why: "no auth-ok within the auth timeout", send: nil)
        }
        socket.onMessage = { [self] _, message in
            guard gen == generation else { return }
            received(message)
        }
        socket.onClose = { [self] _, code, reason in
            guard gen == generation else { return }
            ws = nil
            lose(why: "connection closed (\(code.rawValue) \(reason))", send: nil)
        }
    }

    func authenticated(_ ok: RelayFrame.AuthOK) {
        cancel(&authTimer)
        downSince = nil
        refusedSinceAuth = false
        publish(.connected(ok))
        let gen = generation
        armPing(gen)
        armDeadLink(gen)
        // Mail not yet `stored` goes again, byte for byte (same frame ids).
        for frame in outbox.frames { ws?.send(binary: frame) }
        sendOrders()
    }

    /// The account's standing orders, again on each connection (the relay keeps them idempotently).
    func sendOrders() {
        guard isOpen else { return }
        for o in orders(configuration.relay.origin) { send(.accountOrder(o)) }
    }

    /// Transient failure: close and reconnect after the next backoff delay (fast at first).
    func lose(why: String, send frame: RelayFrame?) {
        log("relay link \(dialled.origin) lost: \(why)")
        closeConnection(send: frame)
        guard running else { return }
        nextNode()
        let now = ContinuousClock.now
        let since = downSince ?? now
        downSince = since
        let delay = refusedSinceAuth
            ? configuration.backoff.refusalDelay(unit: unitRandom())
            : configuration.backoff.delay(down: since < now ? now - since : .zero, unit: unitRandom())
        retry(after: delay, state: .waiting(retryIn: delay))
    }

    /// Permanent refusal: close, surface it, retry only after the maximum backoff (`replaced`: never).
    func refuse(_ refusal: LinkRefusal, send frame: RelayFrame?) {
        log("relay link \(dialled.origin) refused: \(refusal)")
        closeConnection(send: frame)
        guard running else { return }
        if refusal == .replaced {
            running = false // another copy of this device is connected; `start()` takes over again
            publish(.refused(.replaced, retryIn: nil))
            return
        }
        refusedSinceAuth = true // later transient failures stay at the maximum until an `auth-ok`
        nextNode()
        let delay = configuration.backoff.refusalDelay(unit: unitRandom())
        retry(after: delay, state: .refused(refusal, retryIn: delay))
    }

    /// `restarting`: the relay asks us to come back after `ms`; we do, jittered upward a
    /// little. If it is not back yet, the fast schedule starts from the announced time.
    func relayRestarting(_ ms: UInt32) {
        closeConnection(send: nil)
        guard running else { return }
        nextNode()
        let delay = configuration.backoff.requested(.milliseconds(Int64(ms)), unit: unitRandom())
        downSince = ContinuousClock.now + delay
        refusedSinceAuth = false
        retry(after: delay, state: .relayRestarting(reconnectIn: delay))
    }

    /// A cluster's next node for the next connection (one relay: always the same).
    private func nextNode() {
        let count = configuration.dialOrder.count
        guard count > 1 else { return }
        dialIndex = (dialIndex + 1) % count
        log("relay link: next connection to \(dialled.origin)")
    }

    private func retry(after delay: Duration, state: LinkState) {
        publish(state)
        cancel(&retryTimer)
        retryTimer = loop.schedule(after: delay) { [self] in
            retryTimer = nil
            connect()
        }
    }

    /// Forgets the current connection (a new generation) and fails live frames waiting on it.
    func closeConnection(send frame: RelayFrame?) {
        generation &+= 1
        cancel(&authTimer); cancel(&pingTimer); cancel(&deadTimer)
        for t in liveTimers { loop.cancel(t.timer) }
        liveTimers = []
        barrierQueued = false
        session = nil
        for c in live.drain() { c(.failed(.linkDown)) }
        if let socket = ws {
            ws = nil
            socket.onMessage = nil
            socket.onClose = nil
            if let frame, let bytes = try? frame.encode() { socket.send(binary: bytes) }
            socket.close()
        }
    }

    private func armPing(_ gen: UInt64) {
        pingTimer = loop.schedule(after: configuration.pingInterval) { [self] in
            pingTimer = nil
            guard gen == generation else { return }
            sendPing()
            armPing(gen)
        }
    }

    /// Re-arms for the remainder while frames keep arriving; fires once nothing was heard for
    /// `deadLinkTimeout` (the relay answers our pings, so a healthy idle link never gets here).
    private func armDeadLink(_ gen: UInt64) {
        let elapsed = ContinuousClock.now - lastHeard
        if elapsed >= configuration.deadLinkTimeout {
            lose(why: "dead link: nothing heard for \(elapsed)", send: nil)
            return
        }
        deadTimer = loop.schedule(after: configuration.deadLinkTimeout - elapsed) { [self] in
            deadTimer = nil
            guard gen == generation else { return }
            armDeadLink(gen)
        }
    }

    func cancel(_ timer: inout TimerHandle?) {
        if let t = timer { loop.cancel(t); timer = nil }
    }
}
