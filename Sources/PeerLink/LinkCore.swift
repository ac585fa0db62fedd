import Signing
import Transport
import RelayWire

typealias LiveCompletion = @Sendable (LiveOutcome) -> Void
typealias MailCompletion = @Sendable (Result<MailOutcome, any Error>) -> Void

/// The link's engine: connection lifecycle, timers, traffic. LOOP THREAD ONLY: `PeerLink`
/// reaches it through `loop.execute`, which is what makes the `@unchecked Sendable` true.
///
/// The lifecycle is one `phase` (LinkPhase.swift): its cases hold the socket, session and timers
/// of that phase only. Every connection attempt gets a new number; callbacks and timers of an
/// older one (or of another phase of the same one) find `phase.mayFire` false and do nothing,
/// so a late close or timer can never tear down a newer connection.
final class LinkCore: @unchecked Sendable {
    typealias Phase = LinkPhase<WebSocket, TimerHandle>

    let loop: EventLoop
    let configuration: PeerLink.Configuration
    let tls: TLSClientContext?
    let makeSession: @Sendable (RelayURL) -> LinkSession
    let orders: @Sendable (String) -> [RelayFrame.AccountOrder]
    let publish: @Sendable (LinkState) -> Void
    let inbound: AsyncStream<InboundEvent>.Continuation

    // Lifecycle.
    /// Moved on only by `connect`, `attach`, `authenticated` and `closeConnection`; within a
    /// phase, `received` updates its session and the open phase's timers re-arm themselves.
    var phase = Phase.stopped
    /// The last attempt's number (`connect` counts them).
    var attempts: UInt64 = 0
    /// Since when the link has been down (drives the backoff); nil while connected. Set by
    /// `lose` and `relayRestarting`, cleared by `start` and `authenticated`.
    var downSince: ContinuousClock.Instant?
    /// A permanent refusal since the last `auth-ok`: later transient failures wait the maximum.
    /// Set by `refuse`, cleared by `start`, `authenticated` and `relayRestarting`.
    var refusedSinceAuth = false
    /// When the relay was last heard: set by `attach` and every frame (`received`), read by the
    /// dead-link check.
    var lastHeard = ContinuousClock.now
    /// Which of `configuration.dialOrder` the next connection dials; moves on after each failure
    /// (`nextNode`).
    var dialIndex = 0
    var dialled: RelayURL { let order = configuration.dialOrder; return order[dialIndex % order.count] }

    // Traffic (LinkTraffic.swift): outlives connections; live frames are failed when one closes.
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

    var isOpen: Bool { phase.isOpen }
    var finished: Bool { phase.isFinished }

    func log(_ line: @autoclosure () -> String) { configuration.log?(line()) }

    /// Connects only when no retry is pending (`phase.startDials`).
    func start() {
        guard phase.startDials else { return }
        downSince = nil
        refusedSinceAuth = false
        connect()
    }

    func stop() {
        guard !finished else { return }
        closeConnection(send: nil, becoming: .finished)
        for c in live.drain() { c(.failed(.stopped)) }
        for c in outbox.drain() { c(.failure(PeerLinkError.stopped)) }
        publish(.stopped)
        inbound.finish()
    }

    /// Closes the connection cleanly and stays down until `start()` (a workstation going to
    /// sleep). Unlike `stop()` it is not final: waiting mail stays in the outbox.
    func suspend() {
        guard phase.isRunning else { return }
        closeConnection(send: nil, becoming: .stopped)
        publish(.stopped)
    }

    private func connect() {
        attempts &+= 1
        let attempt = attempts
        phase = .dialling(attempt: attempt)
        publish(.connecting)
        configuration.dial(loop, configuration.webSocketConfiguration(dialling: dialled, tls: tls)) { [self] result in
            guard phase.mayFire(.dialled(attempt)) else {
                if case .success(let stale) = result { stale.close() }
                return
            }
            switch result {
            case .success(let socket): attach(socket, attempt)
            case .failure(.certificatePinMismatch): refuse(.certificate(TransportError.certificatePinMismatch.description), send: nil)
            case .failure(.tls(let why)): refuse(.certificate(why), send: nil)
            case .failure(let e): lose(why: "connect failed: \(e)", send: nil)
            }
        }
    }

    private func attach(_ socket: WebSocket, _ attempt: UInt64) {
        lastHeard = .now
        let authTimer = loop.schedule(after: configuration.authTimeout) { [self] in
            guard phase.mayFire(.authTimer(attempt)) else { return }
            lose(why: "no auth-ok within the auth timeout", send: nil)
        }
        phase = .authenticating(.init(attempt: attempt, socket: socket, session: makeSession(dialled)), authTimer: authTimer)
        publish(.authenticating)
        socket.onMessage = { [self] _, message in
            guard phase.mayFire(.socket(attempt)) else { return }
            received(message)
        }
        socket.onClose = { [self] _, code, reason in
            guard phase.mayFire(.socket(attempt)) else { return }
            lose(why: "connection closed (\(code.rawValue) \(reason))", send: nil, closed: true)
        }
    }

    func authenticated(_ ok: RelayFrame.AuthOK) {
        guard case .authenticating(let connection, let authTimer) = phase else { return }
        loop.cancel(authTimer)
        downSince = nil
        refusedSinceAuth = false
        publish(.connected(ok))
        let attempt = connection.attempt
        phase = .open(connection, pingTimer: pingTimer(attempt), deadTimer: deadLinkTimer(attempt))
        let elapsed = ContinuousClock.now - lastHeard
        if elapsed >= configuration.deadLinkTimeout {
            lose(why: "dead link: nothing heard for \(elapsed)", send: nil)
            return
        }
        // Mail not yet `stored` goes again, byte for byte (same frame ids).
        for frame in outbox.frames { connection.socket.send(binary: frame) }
        sendOrders()
    }

    /// The account's standing orders, again on each connection (the relay keeps them idempotently).
    func sendOrders() {
        guard isOpen else { return }
        for o in orders(configuration.relay.origin) { send(.accountOrder(o)) }
    }

    /// Transient failure: close and reconnect after the next backoff delay (fast at first).
    /// `closed`: the socket already closed itself (nothing to send or close on it).
    func lose(why: String, send frame: RelayFrame?, closed: Bool = false) {
        log("relay link \(dialled.origin) lost: \(why)")
        guard phase.isRunning else { return }
        let lost = attempts
        nextNode()
        let now = ContinuousClock.now
        let since = downSince ?? now
        downSince = since
        let delay = refusedSinceAuth
            ? configuration.backoff.refusalDelay(unit: unitRandom())
            : configuration.backoff.delay(down: since < now ? now - since : .zero, unit: unitRandom())
        closeConnection(send: frame, becoming: waitingToRetry(after: lost, delay), closed: closed)
        publish(.waiting(retryIn: delay))
    }

    /// Permanent refusal: close, surface it, retry only after the maximum backoff (`replaced`: never).
    func refuse(_ refusal: LinkRefusal, send frame: RelayFrame?) {
        log("relay link \(dialled.origin) refused: \(refusal)")
        guard phase.isRunning else { return }
        if refusal == .replaced {
            // Another copy of this device is connected; `start()` takes over again.
            closeConnection(send: frame, becoming: .stopped)
            publish(.refused(.replaced, retryIn: nil))
            return
        }
        refusedSinceAuth = true // later transient failures stay at the maximum until an `auth-ok`
        let refused = attempts
        nextNode()
        let delay = configuration.backoff.refusalDelay(unit: unitRandom())
        closeConnection(send: frame, becoming: waitingToRetry(after: refused, delay))
        publish(.refused(refusal, retryIn: delay))
    }

    /// `restarting`: the relay asks us to come back after `ms`; we do, jittered upward a
    /// little. If it is not back yet, the fast schedule starts from the announced time.
    func relayRestarting(_ ms: UInt32) {
        guard phase.isRunning else { return }
        let left = attempts
        nextNode()
        let delay = configuration.backoff.requested(.milliseconds(Int64(ms)), unit: unitRandom())
        downSince = ContinuousClock.now + delay
        refusedSinceAuth = false
        closeConnection(send: nil, becoming: waitingToRetry(after: left, delay))
        publish(.relayRestarting(reconnectIn: delay))
    }

    /// A cluster's next node for the next connection (one relay: always the same).
    private func nextNode() {
        let count = configuration.dialOrder.count
        guard count > 1 else { return }
        dialIndex = (dialIndex + 1) % count
        log("relay link: next connection to \(dialled.origin)")
    }

    /// The phase that dials again after `delay` (the retry is the phase's timer).
    private func waitingToRetry(after attempt: UInt64, _ delay: Duration) -> Phase {
        let timer = loop.schedule(after: delay) { [self] in
            guard phase.mayFire(.retryTimer(attempt)) else { return }
            connect()
        }
        return .waitingToRetry(after: attempt, retryTimer: timer)
    }

    /// Leaves the current phase for `next`: cancels the old phase's timers, fails live frames
    /// waiting on its connection, and closes its socket (sending `frame` first). The new phase
    /// is in place before any completion runs, so one that sends again sees the link down.
    func closeConnection(send frame: RelayFrame?, becoming next: Phase, closed: Bool = false) {
        let old = phase
        phase = next
        for t in old.timers { loop.cancel(t) }
        for t in liveTimers { loop.cancel(t.timer) }
        liveTimers = []
        barrierQueued = false
        for c in live.drain() { c(.failed(.linkDown)) }
        if let socket = old.socket, !closed {
            socket.onMessage = nil
            socket.onClose = nil
            if let frame, let bytes = try? frame.encode() { socket.send(binary: bytes) }
            socket.close()
        }
    }

    /// The keepalive: a ping every `pingInterval` while attempt `attempt` is open.
    private func pingTimer(_ attempt: UInt64) -> TimerHandle {
        loop.schedule(after: configuration.pingInterval) { [self] in
            guard phase.mayFire(.openTimer(attempt)) else { return }
            sendPing()
            guard phase.mayFire(.openTimer(attempt)) else { return }
            phase.replacePingTimer(pingTimer(attempt))
        }
    }

    /// Re-arms for the remainder while frames keep arriving; fires once nothing was heard for
    /// `deadLinkTimeout` (the relay answers our pings, so a healthy idle link never gets here).
    private func deadLinkTimer(_ attempt: UInt64) -> TimerHandle {
        let elapsed = ContinuousClock.now - lastHeard
        let left = elapsed < configuration.deadLinkTimeout ? configuration.deadLinkTimeout - elapsed : .zero
        return loop.schedule(after: left) { [self] in
            guard phase.mayFire(.openTimer(attempt)) else { return }
            let elapsed = ContinuousClock.now - lastHeard
            if elapsed >= configuration.deadLinkTimeout {
                lose(why: "dead link: nothing heard for \(elapsed)", send: nil)
                return
            }
            phase.replaceDeadTimer(deadLinkTimer(attempt))
        }
    }
}
