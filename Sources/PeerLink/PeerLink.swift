import Signing
import Synchronization
import Transport
import RelayWire

/// A device's link to one relay: connects over ws:// or wss://, answers the challenge,
/// reconnects with jittered exponential backoff, keeps itself alive with pings, sends live
/// frames (with a per-frame outcome) and mail (kept and resent until stored), receives
/// frames and acks mail, drops duplicates. An agent holds one per relay.
///
///     let link = try PeerLink(configuration: .init(relayURL: "wss://relay.example/v1/connect"), identity: key)
///     link.start()
///     for await event in link.inbound { ... link.ack(frame) after persisting mail ... }
///
/// Thread-safe. The engine runs on a Transport `EventLoop` (shared with other links, or the
/// link's own); every method here only hops onto it, never blocks.
public final class PeerLink: Sendable {
    public let configuration: Configuration
    /// Our device key: the address the relay knows us by.
    public let deviceKey: PublicKey
    /// Every state change, latest kept when the consumer lags (one consumer).
    public let states: AsyncStream<LinkState>
    /// Frames for us and `queue-empty` markers, in arrival order (one consumer). Ends after `stop()`.
    public let inbound: AsyncStream<InboundEvent>

    private let loop: EventLoop
    private let ownsLoop: Bool
    private let core: LinkCore
    private let current: StateBox
    /// Set by `stop()` before it hops to the loop, so calls made after it see `.stopped` at once.
    private let stopRequested = Atomic(false)

    /// - Parameters:
    ///   - identity: the device's signing key; signs the relay's challenge.
    ///   - accountProof: the account key and its signature over
    ///     `RelayAuth.accountBinding(deviceKey:)` (64 bytes), for relays admitting by account.
    ///   - admissionToken: from an invite (at most 1,024 bytes); kept in wiped memory.
    ///   - admission: the device proof, token and account orders to present (replaces
    ///     `admissionToken` when given).
    ///   - loop: a started loop to run on; nil starts one owned by this link (shut down when the
    ///     link is released).
    public init(configuration: Configuration, identity: SigningKey,
                accountProof: (accountKey: PublicKey, signature: [UInt8])? = nil,
                admissionToken: [UInt8]? = nil, admission: LinkAdmission? = nil, loop: EventLoop? = nil) throws {
        let account: RelayFrame.AccountProof?
        if let p = accountProof {
            guard let sig = Bytes64(p.signature) else { throw PeerLinkError.invalidAccountProof }
            account = .init(accountKey: p.accountKey, signature: sig)
        } else {
            account = nil
        }
        if let t = admissionToken, t.count > Limits.maxAdmissionToken {
            throw PeerLinkError.tooLarge(field: "admission token", length: t.count, limit: Limits.maxAdmissionToken)
        }
        let admission = admission ?? .token(admissionToken)
        let tls = try configuration.tlsContext()
        self.configuration = configuration
        deviceKey = identity.publicKey
        let (states, stateSink) = AsyncStream.makeStream(of: LinkState.self, bufferingPolicy: .bufferingNewest(64))
        let (inbound, inboundSink) = AsyncStream.makeStream(
            of: InboundEvent.self, bufferingPolicy: .bufferingOldest(max(1, configuration.inboundBuffer)))
        self.states = states
        self.inbound = inbound
        let box = StateBox(sink: stateSink)
        current = box
        if let loop {
            self.loop = loop; ownsLoop = false
        } else {
            let own = try EventLoop()
            try own.start()
            self.loop = own; ownsLoop = true
        }
        let relay = configuration.relay
        core = LinkCore(loop: self.loop, configuration: configuration, tls: tls,
                        makeSession: { LinkSession(relay: $0, cluster: relay, identity: identity, account: account, admission: admission) },
                        orders: admission.orders,
                        publish: { box.publish($0) }, inbound: inboundSink)
    }

    deinit {
        let core = core
        loop.execute { core.stop() }
        if ownsLoop { loop.shutdown() }
    }

    /// The latest state (`.stopped` before `start()`).
    public var state: LinkState { stopRequested.load(ordering: .acquiring) ? .stopped : current.value }

    /// Starts connecting (and, after a `.refused(.replaced, retryIn: nil)`, takes over again).
    public func start() {
        let core = core
        loop.execute { core.start() }
    }

    /// Closes the connection cleanly (the relay tells recent correspondents `peer-gone`) and
    /// stays down, state `.stopped`, until `start()`. Waiting mail stays queued. Not final.
    public func suspend() {
        let core = core
        loop.execute { core.suspend() }
    }

    /// Closes the link for good: live sends fail `.stopped`, waiting mail throws `.stopped`,
    /// both streams end.
    public func stop() {
        stopRequested.store(true, ordering: .releasing)
        current.markFinal()
        let core = core
        loop.execute { core.stop() }
    }

    /// Sends a live frame and waits for its outcome: `.sent` once the relay has answered a later
    /// ping without bouncing it (about one round trip), `.failed(.linkDown)` AT ONCE when the
    /// link is not up (never waits for a reconnect).
    public func sendLive(to recipient: PublicKey, payload: [UInt8]) async -> LiveOutcome {
        let now = state
        guard now.isConnected else { return .failed(now == .stopped ? .stopped : .linkDown) }
        return await withCheckedContinuation { c in
            sendLive(to: recipient, payload: payload) { c.resume(returning: $0) }
        }
    }

    /// Fire-and-forget live send for streams: no suspension, frames go out in call order, and
    /// `then` (optional, run on the loop thread: keep it short) hears the outcome. Many frames
    /// sent in one loop turn share one barrier ping, so a stream costs one ping per batch.
    public func sendLive(to recipient: PublicKey, payload: [UInt8],
                         then completion: (@Sendable (LiveOutcome) -> Void)? = nil) {
        let to = recipient
        let core = core
        let done: LiveCompletion = completion ?? { _ in }
        loop.execute { core.sendLive(to: to, payload: payload, completion: done) }
    }

    /// Sends a mail frame and waits until the relay has stored it (or said the mailbox is full).
    /// While the link is down the frame waits in the outbox and goes out after each reconnect,
    /// with the same frame id, until answered. Throws `PeerLinkError` (`outboxFull`, `stopped`,
    /// `tooLarge`, `invalidTTL`) or `CancellationError` if the task is cancelled (the relay may
    /// still have stored it).
    public func sendMail(to recipient: PublicKey, payload: [UInt8], ttl: Duration,
                         collapseKey: [UInt8] = []) async throws -> MailOutcome {
        guard !stopRequested.load(ordering: .acquiring) else { throw PeerLinkError.stopped }
        let frameID = newFrameID()
        let frame = try Self.mailFrame(to: recipient, payload: payload, ttl: ttl, collapseKey: collapseKey, id: frameID)
        let core = core, loop = loop
        let gate = CancelGate()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<MailOutcome, any Error>) in
                // Under the gate's lock, so a cancel hop can only follow the enqueue hop.
                let enqueued = gate.enqueue {
                    loop.execute { core.sendMail(frameID, frame: frame) { c.resume(with: $0) } }
                }
                if !enqueued { c.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            gate.cancel { loop.execute { core.cancelMail(frameID) } }
        }
    }

    /// Acknowledges a mail frame once it is durably processed: the relay deletes it. Until then
    /// it stays stored and comes again on the next connection (not twice to the consumer).
    /// Live frames are never acked (this does nothing for them).
    public func ack(_ frame: Inbound) {
        guard frame.deliveryClass == .mail else { return }
        let sender = frame.sender, id = frame.frameID
        let core = core
        loop.execute { core.ack(sender: sender, frameID: id) }
    }

    static func mailFrame(to recipient: PublicKey, payload: [UInt8], ttl: Duration, collapseKey: [UInt8],
                          id: Bytes16) throws(PeerLinkError) -> [UInt8] {
        guard payload.count <= Limits.maxSealed else {
            throw .tooLarge(field: "payload", length: payload.count, limit: Limits.maxSealed)
        }
        guard collapseKey.count <= Limits.maxCollapseKey else {
            throw .tooLarge(field: "collapse key", length: collapseKey.count, limit: Limits.maxCollapseKey)
        }
        let seconds = ttl.components.seconds + (ttl.components.attoseconds > 0 ? 1 : 0)
        guard seconds >= 1, seconds <= Int64(UInt32.max) else { throw .invalidTTL }
        let send = RelayFrame.send(.init(recipient: recipient, deliveryClass: .mail,
                                         frameID: id, ttlSeconds: UInt32(seconds), collapseKey: collapseKey, sealed: payload))
        do { return try send.encode() } catch { throw .tooLarge(field: "frame", length: payload.count, limit: Limits.maxSealed) }
    }
}

/// The latest state, readable from any thread, and the stream it is published on.
final class StateBox: Sendable {
    private let state = Mutex<LinkState>(.stopped)
    private let sink: AsyncStream<LinkState>.Continuation
    /// Set by `stop()`: only then does `.stopped` end the stream (`suspend()` publishes it too).
    private let final = Atomic(false)
    init(sink: AsyncStream<LinkState>.Continuation) { self.sink = sink }
    var value: LinkState { state.withLock { $0 } }
    func publish(_ s: LinkState) {
        state.withLock { $0 = s }
        sink.yield(s)
        if s == .stopped && final.load(ordering: .acquiring) { sink.finish() }
    }
    func markFinal() { final.store(true, ordering: .releasing) }
}

/// The `peer-gone` handler, settable from any thread, called on the loop thread.
final class PeerGoneHook: Sendable {
    private let handler = Mutex<(@Sendable (PublicKey, PeerGoneReason) -> Void)?>(nil)
    func set(_ h: @escaping @Sendable (PublicKey, PeerGoneReason) -> Void) { handler.withLock { $0 = h } }
    func call(_ key: PublicKey, _ reason: PeerGoneReason) { handler.withLock { $0 }?(key, reason) }
}

/// Orders a mail send against its task's cancellation (see `PeerLink.sendMail`).
final class CancelGate: Sendable {
    private let cancelled = Mutex(false)
    /// Runs `body` unless already cancelled; false if cancelled.
    func enqueue(_ body: () -> Void) -> Bool {
        cancelled.withLock { c in
            if c { return false }
            body()
            return true
        }
    }
    func cancel(_ body: () -> Void) {
        cancelled.withLock { c in c = true; body() }
    }
}

extension PeerLink {
    /// `handler` hears each `peer-gone` on the link's thread, before the live outcomes that the
    /// relay settled after it: a frame whose outcome comes later reached the relay after the
    /// peer left, so the notice is not about it. Keep it short. Replaces any earlier handler.
    public func onPeerGone(_ handler: @escaping @Sendable (PublicKey, PeerGoneReason) -> Void) {
        core.peerGoneHook.set(handler)
    }

    /// Sends the account's orders (`LinkAdmission.orders`) now if connected; they go again after
    /// each `auth-ok` anyway. Call it when they changed (a new code, invite or removal).
    public func sendOrders() {
        let core = core
        loop.execute { core.sendOrders() }
    }
}
