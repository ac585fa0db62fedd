import Courier
import Foundation
import PeerLink
import RelayRouting
import Sealing
import Signing
import Synchronization

/// The guest's link to its account's relay for one command's duration (`guest chat`,
/// `guest status`, `guest serve`): PeerLink + Courier, the account's mail handled by
/// `GuestMail` (acked once persisted), and the relay-routed providers installed in the
/// context's `RelayProviderSlot`.
///
///     let link = try GuestLink.open(context, slot: slot)   // nil: no relay configured
///     await link?.waitForBacklog()                          // a fresh advert is on file
///     ...
///     link?.stop()
public final class GuestLink: Sendable {
    /// Every wait of the link, configurable (tests use milliseconds).
    public struct Options: Sendable {
        /// Longest wait for the mail backlog (until `queue-empty` and all of it handled).
        public var backlogWait: Duration = .seconds(2)
        /// The watchdog ladder of relayed requests.
        public var watchdog = WatchdogLimits()
        /// TCP + TLS + upgrade, and the challenge: each (PeerLink's own default is 10 s).
        public var connectTimeout: Duration = .seconds(5)

        public init() {}
    }

    struct State {
        var link: LinkState = .stopped
        var backlogDrained = false
        /// Deliveries handled (compared with the Courier's opened count).
        var handled = 0
        var lastMail: String?
    }

    public let setting: RelayFile.Setting
    public let courier: Courier
    public let directory: GuestDirectory
    let mail: GuestMail
    let options: Options
    let log: EventLog
    private let state = Mutex(State())
    private let tasks = Mutex<[Task<Void, Never>]>([])

    /// Opens the link when `relay.json` names a relay and this device has an identity;
    /// nil otherwise. Installs the relay-routed providers in `slot`.
    public static func open(_ context: GuestContext, slot: RelayProviderSlot, options: Options = Options()) throws -> GuestLink? {
        let paths = context.paths
        guard let setting = try RelayFile(path: paths.relaySetting).read() else { return nil }
        guard FileManager.default.fileExists(atPath: paths.identity + "/" + DeviceIdentity.signingKeyFile) else {
            context.log.write("relay: no device identity (guest init): not connecting")
            return nil
        }
        let identity = try DeviceIdentity.load(from: paths.identity)
        let roster = AccountKeyFile(path: paths.accountKey).read().flatMap { RosterFile(path: paths.roster).read(account: $0) }
        let directory = GuestDirectory(me: identity.signingKey.publicKey, bootstrap: setting.homebaseRecord,
                                       roster: roster?.records ?? [])
        var config = try PeerLink.Configuration(relayURL: setting.url,
                                                trust: try setting.pin.map { try PeerLink.Trust.pinned(hex: $0) } ?? .systemRoots)
        config.connectTimeout = options.connectTimeout
        config.authTimeout = options.connectTimeout
        let log = context.log
        config.log = { log.write("relay: \($0)") }
        let peers = JoinedDirectory(account: directory, joined: JoinedHostFiles(paths: paths).all())
        let courier = Courier(link: try PeerLink(configuration: config, identity: identity.signingKey),
                              identity: identity, directory: peers)
        var mail = GuestMail(paths: paths, directory: directory, database: context.routingDatabase)
        let models = context.modelStore
        mail.localModelChoice = { LocalModelChoice.apply($0, store: models, log: log) }
        let link = GuestLink(setting: setting, courier: courier, directory: directory, mail: mail, options: options, log: log)
        slot.install(HomebaseProviderFactory(courier: courier, directory: peers, limits: options.watchdog,
                                             log: { log.write("homebase: \($0)") }))
        link.start()
        return link
    }

    init(setting: RelayFile.Setting, courier: Courier, directory: GuestDirectory, mail: GuestMail,
         options: Options, log: EventLog) {
        self.setting = setting; self.courier = courier; self.directory = directory
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
        let outcome = d.introduced ? .refused("introduction from \(shortHex(d.sender.signingKey)) ignored")
            : mail.handle(d.message, from: d.sender, heldMs: d.heldMs)
        let line: String
        switch outcome {
        case .stored(let s): d.ack(); line = s
        case .refused(let s): d.ack(); line = "refused " + s
        case .kept(let s): line = "kept " + s
        }
        log.write("relay mail: \(line)")
        state.withLock { $0.handled += 1; $0.lastMail = line }
    }

    func note(_ e: CourierEvent) {
        switch e {
        case .queueEmpty: state.withLock { $0.backlogDrained = true }
        case .link(let ls): state.withLock { $0.link = ls }
        }
    }

    /// Waits until the relay's backlog for us has been handled (`queue-empty` seen and every
    /// opened message consumed), at most `options.backlogWait`.
    public func waitForBacklog() async {
        let deadline = ContinuousClock.now + options.backlogWait
        while ContinuousClock.now < deadline {
            let opened = courier.stats.opened
            if state.withLock({ $0.backlogDrained && $0.handled >= opened }) { return }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// The link in words: "connected to ws://…", "waiting (retry in 2 s)", ...
    public var linkDescription: String {
        let (ls, drained) = state.withLock { ($0.link, $0.backlogDrained) }
        let relay = setting.url
        switch ls {
        case .connected: return "connected to \(relay)" + (drained ? ", mail backlog read" : "")
        case .connecting, .authenticating: return "connecting to \(relay)"
        case .waiting(let retry): return "cannot reach \(relay) (retry in \(retry))"
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
