import PeerLink
import Sealing
import Signing
import Synchronization
import Wire

/// Sealed application messages over one relay link: the layer both agents talk through.
///
///     let courier = Courier(link: link, identity: me, directory: roster, configuration: .init())
///     courier.start()                                   // starts the link too
///     let (outcome, replies) = await courier.sendRequest(request, to: host)
///     for await reply in replies { ... }                // accept, chunks, done | error
///     for await d in courier.deliveries { ...; d.ack() } // everything else
///
/// Outbound: encodes, seals (`Envelope.seal`), splits a body longer than one frame carries
/// into `part` messages (each sealed on its own) and sends live or as mail. Inbound: one task
/// reads `link.inbound`, looks the sender up in the directory (unknown: dropped), opens,
/// refuses replays (per sender, persisted when given a `ReplayStore`), reassembles parts
/// (within per-sender budgets), hands replies to the `ReplyStream` of their request and
/// everything else to `deliveries`. Nothing it logs or counts carries content.
///
/// The Courier owns the link's `inbound` and `states` streams (each has one consumer).
public final class Courier: Sendable {
    public let link: PeerLink
    public let identity: DeviceIdentity
    public let directory: any DeviceDirectory
    public let configuration: Configuration
    /// Opened inbound messages that are not replies to our requests (one consumer).
    public let deliveries: AsyncStream<Delivery>
    /// `queue-empty` markers and link state changes (one consumer; latest 64 kept if it lags).
    public let events: AsyncStream<CourierEvent>

    let deliverySink: AsyncStream<Delivery>.Continuation
    let eventSink: AsyncStream<CourierEvent>.Continuation
    let replies: ReplyRegistry
    /// What each `peer-gone` is about, from the link's thread to the inbound loop.
    let goneNotices = GoneNotices()
    let inbound: Mutex<InboundState>
    let written: Mutex<StreamLedger>
    /// Mail from unknown senders waiting for `retryHeld()` (`Configuration.holdUnknownMail`).
    let held = Mutex<[Inbound]>([])
    private let tasks = Mutex<[Task<Void, Never>]?>([])

    /// What only the inbound path touches (and `stats` reads).
    struct InboundState {
        /// Per sender (`ReplayBook`), in memory or in the configured `ReplayStore`.
        var replay: ReplayState
        /// Introductions have their own state: devices we do not know cannot flood it to fill
        /// the state that protects our known devices' envelopes.
        var introductionReplay: ReplayState
        var introductionLimit: IntroductionLimiter
        var parts: PartCollector
        var stats = CourierStats()
    }

    /// - Parameters:
    ///   - link: a link not yet started; the Courier starts and stops it and consumes its streams.
    ///   - identity: our device identity (opens what is sealed to us, seals as us).
    ///   - directory: who may talk to us.
    public init(link: PeerLink, identity: DeviceIdentity, directory: any DeviceDirectory,
                configuration: Configuration = Configuration()) {
        self.link = link
        self.identity = identity
        self.directory = directory
        self.configuration = configuration
        (deliveries, deliverySink) = AsyncStream.makeStream(
            of: Delivery.self, bufferingPolicy: .bufferingOldest(max(1, configuration.deliveryBuffer)))
        (events, eventSink) = AsyncStream.makeStream(of: CourierEvent.self, bufferingPolicy: .bufferingNewest(64))
        replies = ReplyRegistry(cancelledMemory: configuration.cancelledMemory, bufferSize: configuration.replyBuffer)
        // Which requests a notice is about is judged on the link's thread, in order with live
        // outcomes; they end in the notice's place among the frames (Courier+PeerGone.swift).
        let registry = replies, gone = goneNotices
        link.onPeerGone { key, _ in gone.heard(key, registry.confirmedRequests(of: key)) }
        written = Mutex(StreamLedger(capacity: configuration.writtenStreamMemory))
        let c = configuration
        inbound = Mutex(InboundState(
            replay: ReplayState(ReplayBook(template: c.replayGuard, senders: c.replaySenders),
                                store: c.replayStore, book: .envelopes),
            introductionReplay: ReplayState(ReplayBook(template: c.introductionGuard, senders: c.introductionSenders),
                                            store: c.replayStore, book: .introductions),
            introductionLimit: IntroductionLimiter(perMinute: c.introductionsPerMinute),
            parts: PartCollector(configuration: c.reassembly, budgets: c.partBudgets)))
    }

    /// Keeps the replay state of at least `senders` senders (never fewer than configured). Past
    /// the cap a new sender's envelopes stamped before the moment one was forgotten are refused
    /// unanswered, so a host sizes it to every device it serves: a crowd of more senders than
    /// the cap, all asking at once, would otherwise lose most of its requests in silence.
    public func keepReplayState(forSenders senders: Int) {
        inbound.withLock { $0.replay.hold(atLeast: senders) }
    }

    /// The counters so far.
    public var stats: CourierStats {
        var s = inbound.withLock { $0.stats }
        s.requestsEndedByPeerGone = replies.endedByPeerGone
        return s
    }

    /// Starts reading the link's streams and starts the link. Once; after `stop()` it does nothing.
    public func start() {
        let link = link, interval = configuration.sweepInterval
        tasks.withLock { tasks in
            guard tasks?.isEmpty == true else { return }
            tasks = [
                Task { [weak self] in
                    for await event in link.inbound {
                        guard let self else { return }
                        switch event {
                        case .queueEmpty: self.eventSink.yield(.queueEmpty)
                        case .frame(let frame): self.handle(frame)
                        case .peerGone(let key, let reason):
                            self.inbound.withLock { $0.stats.peerGone += 1 }
                            self.replies.hostGone(self.goneNotices.take(key), reason)
                        }
                    }
                },
                Task { [weak self] in
                    for await state in link.states { self?.eventSink.yield(.link(state)) }
                },
                Task { [weak self] in
                    while (try? await Task.sleep(for: interval)) != nil {
                        guard let self else { return }
                        self.sweep(nowMs: self.configuration.now())
                    }
                },
            ]
        }
        link.start()
    }

    /// Stops the link, ends `deliveries`, `events` and every `ReplyStream`. Final.
    public func stop() {
        let running = tasks.withLock { t in defer { t = nil }; return t ?? [] }
        link.stop()
        for task in running { task.cancel() }
        replies.finishAll()
        deliverySink.finish()
        eventSink.finish()
    }

    deinit {
        let running = tasks.withLock { $0 ?? [] }
        for task in running { task.cancel() }
    }
}
