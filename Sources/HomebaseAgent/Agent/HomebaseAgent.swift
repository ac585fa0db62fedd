import Courier
import Inference
import PeerLink
import Sealing
import Signing
import Synchronization
import Wire

/// The workstation agent: holds the relay link, serves inference requests from siblings and
/// grantees through the verified runtime, publishes signed adverts and the roster.
///
///     let agent = try HomebaseAgent(configuration: config, files: HostFiles(dataDir: dir))
///     agent.start()
///     ...
///     await agent.stop()
///
/// Thread-safe. Everything it remembers across restarts lives in the `HostStore`.
public final class HomebaseAgent: Sendable {
    public let configuration: Configuration
    public let files: HostFiles
    public let identity: DeviceIdentity
    public let store: HostStore
    /// Invites and joins (sharing with other accounts).
    public let sharing: SharingStore
    public let courier: Courier
    /// This Homebase ran `init` and holds the account key: it signs and mails the roster.
    /// Without it (it joined with `homebase pair CODE`) it takes the rosters the holder mails.
    public let holdsAccountKey: Bool
    let directory = HostDirectory()
    let gate: ConcurrencyGate
    let signer: AdvertSigner
    let state: Mutex<AgentState>
    let replicas: ReplicaWriter
    let mail: MailQueue
    /// Its proof and the account's orders at the relay.
    let relayAdmission: RelayAdmission
    /// One line per request (#21, `AuditSettings`).
    let audit: AuditLog
    private let tasks = Mutex<[Task<Void, Never>]>([])
    /// logind's sleep notice (HomebaseAgent+Sleep); set by `start()`.
    let sleepWatch = Mutex<SleepWatch?>(nil)

    /// Loads the identity and opens the store; does not connect yet.
    public init(configuration: Configuration, files: HostFiles) throws(HomebaseError) {
        self.configuration = configuration
        self.files = files
        identity = try files.loadIdentity()
        holdsAccountKey = files.holdsAccountKey
        store = try files.openStore()
        sharing = try files.openSharing()
        relayAdmission = RelayAdmission(accountKey: holdsAccountKey ? try? files.loadAccountKey() : nil,
                                        storedProof: RelayProofFile(dataDir: files.dataDir).read(),
                                        proofLifetime: configuration.proofLifetime)
        let link: PeerLink
        do {
            link = try PeerLink(configuration: configuration.link, identity: identity.signingKey,
                                admission: relayAdmission.linkAdmission)
        } catch {
            throw .link("\(error)")
        }
        var courierConfiguration = configuration.courier
        if courierConfiguration.replayStore == nil { courierConfiguration.replayStore = try files.openReplayStore() }
        courier = Courier(link: link, identity: identity, directory: directory, configuration: courierConfiguration)
        gate = ConcurrencyGate(limit: configuration.maxConcurrent, queue: configuration.queueLength,
                               perGrantee: configuration.maxPerGrantee)
        signer = AdvertSigner(identity: identity, store: store)
        mail = MailQueue(retry: configuration.mailRetry)
        audit = AuditLog(path: files.auditPath, maxBytes: configuration.audit.maxBytes)
        state = Mutex(AgentState(memory: AgentMemory(
            replica: ConversationMemory(capacity: configuration.replicaCapacity),
            cache: ConversationMemory(capacity: configuration.cacheCapacity))))
        let log = configuration.log
        replicas = ReplicaWriter(store: store, capacity: configuration.replicaCapacity, nowMs: { nowMs() },
                                 log: { line in log?(line) })
        _ = try reload()
        refreshRelayOrders()
        reportSkippedRows()
    }

    /// Connects and serves until `stop()`.
    public func start() {
        let c = configuration
        let loops: [Task<Void, Never>] = [
            Task { [weak self] in
                guard let deliveries = self?.courier.deliveries else { return }
                for await d in deliveries { self?.handle(d) }
            },
            Task { [weak self] in
                guard let events = self?.courier.events else { return }
                for await e in events { self?.linkEvent(e) }
            },
            Task { [weak self] in
                guard let self else { return }
                await self.mail.run(courier: self.courier) { [weak self] in self?.log($0) }
            },
            Task { [weak self] in await self?.every(c.reloadInterval) { $0.tick() } },
            Task { [weak self] in
                await self?.every(c.advertPulse) { $0.publishAdvert(toGrantees: false); $0.publishRoster(pulse: true) }
            },
            Task { [weak self] in
                if c.verifyOnStart { await self?.verifyAtStart() }
                await self?.every(c.reverifyInterval, async: { await $0.reverify() })
            },
        ]
        tasks.withLock { $0 = loops }
        courier.start()
        startSleepWatch()
        log("homebase \(identity.signingKey.publicKey.hex.prefix(16))… connecting to \(c.link.relay)")
    }

    /// Stops serving: cancels the active requests (their engine transfers are aborted), closes
    /// the link, writes a last status. Final.
    public func stop() async {
        let running = tasks.withLock { t in defer { t = [] }; return t }
        for t in running { t.cancel() }
        stopSleepWatch()
        mail.finish()
        let active = state.withLock { s in defer { s.serving.active = [:] }; return Array(s.serving.active.values) }
        for t in active { t.cancel() }
        for t in active { await t.value }
        courier.stop()
        state.withLock { $0.publishing.linkState = .stopped }
        writeStatus(running: false)
        log("stopped")
    }

    /// Runs `body` every `period` until the task is cancelled.
    private func every(_ period: Duration, _ body: (HomebaseAgent) -> Void) async {
        while (try? await Task.sleep(for: period)) != nil { body(self) }
    }

    private func every(_ period: Duration, async body: (HomebaseAgent) async -> Void) async {
        while (try? await Task.sleep(for: period)) != nil { await body(self) }
    }

    /// Every line escaped: names and texts from other devices must not forge lines or drive a terminal.
    func log(_ line: String) { configuration.log?(Printable.escape(line)) }
}

/// What the agent holds in memory, behind one lock, by concern: each part in its own file
/// saying who touches each field.
struct AgentState: Sendable {
    /// The account's devices and the grantees (AgentMembership.swift).
    var membership = AgentMembership()
    /// Conversations held in memory (AgentMemory.swift).
    var memory: AgentMemory
    /// What is owed to the devices, and the link to send it on (AgentPublishing.swift).
    var publishing = AgentPublishing()
    /// The requests in flight and what they came to (AgentServing.swift).
    var serving = AgentServing()
    /// The runtimes and the models they serve (AgentOffer.swift).
    var offer = AgentOffer()
}
