import Courier
import Foundation
import PeerLink
import RelayRouting
import Sealing
import Signing
import Synchronization

/// The guest's link to one relay for one command's duration (`guest chat`, `guest status`,
/// `guest serve`): PeerLink + Courier, its mail handled by `GuestMail` (acked once persisted).
/// `GuestLinks` opens one per relay (the account's, and each joined Homebase's) and links them
/// into the context's brains.
public final class GuestLink: Sendable {
    /// Every wait of the link, configurable (tests use milliseconds).
    public struct Options: Sendable {
        /// Longest wait for the mail backlog (until `queue-empty` and all of it handled).
        public var backlogWait: Duration = .seconds(2)
        /// The watchdog ladder of relayed requests.
        public var watchdog = WatchdogLimits()
        /// TCP + TLS + upgrade, and the challenge: each (PeerLink's own default is 10 s).
        public var connectTimeout: Duration = .seconds(5)
        /// Mail frames from senders not (yet) in the directory held until the backlog's rosters
        /// are applied, then opened or dropped (`Courier.holdUnknownMail`). Default 256.
        public var heldMail = 256
        /// How the frames of requests to a Homebase are padded (`request.shaping`, SPEC 7).
        public var requestShaping: RequestShaping = .padded

        public init() {}
    }

    struct State {
        var link: LinkState = .stopped
        var backlogDrained = false
        /// Deliveries handled (compared with the Courier's opened count).
        var handled = 0
        var lastMail: String?
        /// A roster came with this connection's mail (else the Homebase is asked for one, once).
        var sawRoster = false
        var asked = false
    }

    public let setting: RelayFile.Setting
    public let role: Role
    public let courier: Courier
    public let directory: GuestDirectory
    let mail: GuestMail
    let options: Options
    let log: EventLog
    private let state = Mutex(State())
    private let tasks = Mutex<[Task<Void, Never>]>([])

    /// Which relay this is to the device: its account's (`relay.json`) or one a joined
    /// Homebase lives on (its invite named it). Mail from either goes to the same `GuestMail`.
    public enum Role: Sendable, Equatable {
        case account
        case joined
    }

    /// A link (not started) to the relay of `setting`, authenticating with `identity`'s key:
    /// the device key is the same on every relay, each proves it by its own challenge.
    /// `replay`: where the Courier keeps replay state (the data directory's, so that the next
    /// command refuses what this one accepted); nil keeps it in memory.
    static func make(setting: RelayFile.Setting, role: Role, identity: DeviceIdentity, directory: GuestDirectory,
                     peers: JoinedDirectory, mail: GuestMail, options: Options, log: EventLog,
                     replay: ReplayStore? = nil, admission: LinkAdmission = LinkAdmission()) throws -> GuestLink {
        var config = try PeerLink.Configuration(relayURL: setting.url,
                                                trust: try setting.pin.map { try PeerLink.Trust.pinned(hex: $0) } ?? .systemRoots)
        try config.addAlternates(setting.alternates ?? [])
        config.connectTimeout = options.connectTimeout
        config.authTimeout = options.connectTimeout
        let prefix = role == .account ? "relay: " : "relay \(setting.url): "
        config.log = { log.write(prefix + $0) }
        var courierConfig = Courier.Configuration()
        courierConfig.holdUnknownMail = options.heldMail
        courierConfig.replayStore = replay
        courierConfig.requestShaping = options.requestShaping
        let courier = Courier(link: try PeerLink(configuration: config, identity: identity.signingKey, admission: admission),
                              identity: identity, directory: peers, configuration: courierConfig)
        return GuestLink(setting: setting, role: role, courier: courier, directory: directory, mail: mail,
                         options: options, log: log)
    }

    init(setting: RelayFile.Setting, role: Role, courier: Courier, directory: GuestDirectory, mail: GuestMail,
         options: Options, log: EventLog) {
        self.setting = setting; self.role = role; self.courier = courier; self.directory = directory
        self.mail = mail; self.options = options; self.log = log
    }

    func start() {
        let courier = courier
        let running = [
            Task { [weak self] in
                for await d in courier.deliveries { self?.consume(d) }
            },
            Task { [weak self] in
                for await e in courier.events { self?.note(e) }
            },
        ]
        tasks.withLock { $0 = running }
        courier.start()
    }

    func consume(_ d: Delivery) {
        // First contact from an unknown device is acted on only where expected (SPEC): not here.
        let outcome = d.introduced ? .refused("introduction from \(shortKey(d.sender.signingKey)) ignored")
            : mail.handle(d.message, from: d.sender, heldMs: d.heldMs)
        let line: String
        switch outcome {
        case .stored(let s): d.ack(); line = s
        case .refused(let s): d.ack(); line = "refused " + s
        case .kept(let s): line = "kept " + s
        }
        log.write("relay mail: \(line)")
        var isRoster = false
        if case .roster = d.message { isRoster = true }
        state.withLock { $0.handled += 1; $0.lastMail = line; $0.sawRoster = $0.sawRoster || isRoster }
        // A roster may name senders whose mail is held: open it now.
        if isRoster, case .stored = outcome { courier.retryHeld() }
        backlogHandled()
    }

    func note(_ e: CourierEvent) {
        switch e {
        case .queueEmpty: state.withLock { $0.backlogDrained = true }
        case .link(let ls): state.withLock { $0.link = ls }
        }
        backlogHandled()
    }

    /// Once the backlog is read and every opened message handled, no roster is left to name a
    /// held sender: its mail is dropped (acked), so a stranger cannot fill the mailbox for good.
    /// A backlog without a roster means ours may be old (its mail expired, or was lost): the
    /// account's Homebase is asked for a newer one, once per link.
    private func backlogHandled() {
        let opened = courier.stats.opened
        let (done, ask) = state.withLock { s -> (Bool, Bool) in
            guard s.backlogDrained && s.handled >= opened else { return (false, false) }
            defer { s.asked = true }
            return (true, !s.asked && !s.sawRoster)
        }
        guard done else { return }
        courier.dropHeld()
        if ask && role == .account { askForRoster() }
    }

    /// Waits until the relay's backlog for us has been handled (`queue-empty` seen and every
    /// opened message consumed), at most `options.backlogWait`; not at all once the relay
    /// could not be reached or refused us (no backlog can come before the retry).
    public func waitForBacklog() async {
        let deadline = ContinuousClock.now + options.backlogWait
        while ContinuousClock.now < deadline {
            let opened = courier.stats.opened
            if state.withLock({ ($0.backlogDrained && $0.handled >= opened) || $0.link.isDown }) { return }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Why the relay will not have us, while it refuses (its certificate, an admission policy).
    public var refusal: LinkRefusal? {
        if case .refused(let why, _) = state.withLock({ $0.link }) { return why }
        return nil
    }

    /// Whether the link is up (authenticated).
    public var isConnected: Bool { state.withLock { $0.link.isConnected } }

    /// The link in words: "connected to ws://…", "waiting (retry in 2 s)", ...
    public var linkDescription: String {
        let (ls, drained) = state.withLock { ($0.link, $0.backlogDrained) }
        let relay = setting.url
        switch ls {
        case .connected: return "connected to \(relay)" + (drained ? ", mail backlog read" : "")
        case .connecting, .authenticating: return "connecting to \(relay)"
        case .waiting(let retry):
            let ms = retry.components.seconds * 1000 + retry.components.attoseconds / 1_000_000_000_000_000
            return "cannot reach \(relay) (retry in \(ms < 1000 ? "\(ms) ms" : "\(ms / 1000) s"))"
        case .refused(let why, _): return "refused by \(relay): \(why)"
        case .relayRestarting: return "\(relay) is restarting"
        case .stopped: return "not connected (\(relay))"
        }
    }

    /// The last mail handled, in words (never content).
    public var lastMail: String? { state.withLock { $0.lastMail } }

    /// Stops the link and its tasks. Final.
    public func stop() {
        courier.stop()
        for t in tasks.withLock({ $0 }) { t.cancel() }
    }
}

extension LinkState {
    /// The relay could not be reached or refused us: nothing comes from it until a retry.
    var isDown: Bool {
        switch self {
        case .waiting, .refused: return true
        default: return false
        }
    }
}
