import Basics
import Foundation
import Glibc
import PeerLink
import Wire

/// What `homebase status` shows. The running agent writes the live half (`status.json`);
/// the rest comes from the store, so `status` works whether or not the agent runs.
public struct HostStatus: Codable, Sendable, Equatable {
    public struct Runtime: Codable, Sendable, Equatable {
        public var url: String
        public var kind: String
        public var available: Bool
        public var models: [String]
        public var checkedMs: Int64
        public var lastError: String?
    }
    public struct Advert: Codable, Sendable, Equatable {
        public var sequence: UInt64
        public var sentMs: Int64
        public var models: Int
    }
    public struct Device: Codable, Sendable, Equatable {
        public var key: String
        public var name: String
    }
    public struct Grant: Codable, Sendable, Equatable {
        public var id: String
        public var grantee: String
        public var models: [String]
        public var expiresMs: Int64
        public var revoked: Bool
    }
    /// Which account this Homebase is in, and its part in it.
    public struct Account: Codable, Sendable, Equatable {
        public var key: String
        /// This Homebase holds the account key (it ran `init`; it signs the roster).
        public var holdsKey: Bool
        /// This Homebase is in the roster (false: it was removed from the account).
        public var listed: Bool
        /// The account's first Homebase (the roster's first device), when this one joined.
        public var head: Device?
    }
    /// The live half, from a running agent.
    public struct Live: Codable, Sendable, Equatable {
        public var pid: Int32
        public var running: Bool
        public var updatedMs: Int64
        /// After this the file is stale (the agent died without a last write).
        public var staleAfterMs: Int64
        public var relay: String
        public var link: String
        public var activeRequests: Int
        public var queuedRequests: Int
        /// Requests by outcome since start: done, busy, diverged, cancelled, ...
        public var outcomes: [String: Int]
        /// Messages refused since start (nil from an older agent).
        public var refused: Refused? = nil
        /// The sleep watch: a delay lock held, or why not (nil from an older agent).
        public var sleep: String? = nil
        /// Each runtime's load by URL (#21; nil from an older agent).
        public var runtimeLoad: [String: RuntimeUse]? = nil
        /// The reply shaping level and its interval (`ReplyShaping`; nil from an older agent).
        public var replyShaping: String? = nil
        /// The last 50 requests, oldest first: timing, outcome, who (nil from an older agent).
        public var recent: [RecentRequest]? = nil
    }
    /// One runtime's load in the running agent.
    public struct RuntimeUse: Codable, Sendable, Equatable {
        public var inFlight: Int
        public var served: Int
        /// Its limit of requests at once (0: none of its own).
        public var limit: Int
        /// Failed, skipped until it verifies again.
        public var skipped: Bool
    }

    public var device: Device
    public var rosterVersion: UInt64
    public var siblings: [Device]
    public var runtimes: [Runtime]
    public var lastAdvert: Advert?
    public var grants: [Grant]
    public var live: Live?
    /// The newest pairing code (`homebase pair`) and what became of it.
    public var pairing: PairingStatus? = nil
    /// Nil before `init` or a pairing stored a roster.
    public var account: Account? = nil
    /// Stored rows this version cannot read (skipped, left in place).
    public var skippedRows: [SkippedRow] = []
}

extension HomebaseAgent {
    /// The live facts now.
    func live(running: Bool) -> HostStatus.Live {
        let (link, outcomes, active, urls, recent) = state.withLock { s in
            (s.publishing.linkState, s.serving.outcomes, s.serving.active.count, s.offer.runtimes.map(\.url), s.serving.recent.entries)
        }
        let load = runtimeLoad
        let uses = Dictionary(uniqueKeysWithValues: urls.map { url in
            (url, HostStatus.RuntimeUse(inFlight: load.inFlight[url] ?? 0, served: load.served[url] ?? 0,
                                        limit: configuration.runtimeLimits.limit(url), skipped: load.failed.contains(url)))
        })
        let now = nowMs()
        let reload = configuration.reloadInterval.components.seconds * 1000
            + configuration.reloadInterval.components.attoseconds / 1_000_000_000_000_000
        return HostStatus.Live(pid: getpid(), running: running, updatedMs: now, staleAfterMs: now + max(3 * reload, 3000),
                               relay: configuration.link.relay.description, link: Self.describe(link),
                               activeRequests: active, queuedRequests: gate.counts.waiting, outcomes: outcomes,
                               refused: HostStatus.Refused(courier.stats), sleep: sleepStatus, runtimeLoad: uses,
                               replyShaping: shapingStatus, recent: recent)
    }

    /// Rewrites `status.json` atomically (temp file + rename).
    func writeStatus(running: Bool) {
        guard let data = try? JSONEncoder().encode(live(running: running)) else { return }
        let path = files.statusPath, temp = path + ".tmp"
        guard FileManager.default.createFile(atPath: temp, contents: data, attributes: [.posixPermissions: 0o600]) else { return }
        _ = rename(temp, path)
    }

    static func describe(_ s: LinkState) -> String {
        switch s {
        case .connecting: "connecting"
        case .authenticating: "authenticating"
        case .connected: "connected"
        case .refused(let why, _): "refused (\(why))"
        case .waiting(let retry): "waiting (retry in \(retry))"
        case .relayRestarting: "relay restarting"
        case .stopped: "stopped"
        }
    }
}

extension HostStatus {
    /// Reads the store and, when present, the running agent's `status.json`.
    public static func read(_ files: HostFiles) throws(HomebaseError) -> HostStatus {
        let identity = try files.loadIdentity()
        let store = try files.openStore()
        defer { store.close() }
        let me = identity.signingKey.publicKey
        let devices = try store.devices()
        var skipped = try store.skippedRows()
        if FileManager.default.fileExists(atPath: files.sharingPath) {
            let sharing = try files.openSharing()
            defer { sharing.close() }
            skipped += try sharing.skippedRows()
        }
        var live = (try? Data(contentsOf: URL(fileURLWithPath: files.statusPath)))
            .flatMap { try? JSONDecoder().decode(Live.self, from: $0) }
        if var l = live, l.running, nowMs() > l.staleAfterMs || kill(l.pid, 0) != 0 {
            l.running = false
            live = l
        }
        return HostStatus(
            device: Device(key: me.hex, name: identity.record.name),
            rosterVersion: try store.roster()?.version ?? 0,
            siblings: devices.filter { $0.record.signingKey != me }.map { Device(key: $0.record.signingKey.hex, name: $0.record.name) },
            runtimes: try store.runtimes().map {
                Runtime(url: $0.url, kind: $0.kind.rawValue, available: $0.available, models: $0.models.map(\.tag),
                        checkedMs: $0.checkedMs, lastError: $0.lastError)
            },
            lastAdvert: try store.advertState().map { Advert(sequence: $0.sequence, sentMs: $0.sentMs, models: $0.modelCount) },
            grants: try store.grants().map {
                Grant(id: hex($0.grantID.bytes), grantee: $0.grantee.signingKey.hex, models: $0.models,
                      expiresMs: $0.expiresMs, revoked: $0.revoked)
            },
            live: live,
            pairing: try store.pairings().first.map(PairingStatus.init),
            account: try store.accountPublicKey().map { key throws(HomebaseError) in
                let head = files.holdsAccountKey ? nil : try store.accountHead()
                return Account(key: key.hex, holdsKey: files.holdsAccountKey, listed: devices.contains { $0.record.signingKey == me },
                               head: head.map { Device(key: $0.signingKey.hex, name: $0.name) })
            },
            skippedRows: skipped)
    }
}

/// Lowercase hex: `Basics.hexString` under the name this module's call sites use.
package func hex(_ bytes: some Collection<UInt8>) -> String { hexString(bytes) }
