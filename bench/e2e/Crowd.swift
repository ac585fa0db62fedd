// Many concurrent streams through one relay: real relay process, real Homebase process, real
// llama-server with parallel slots; the guest devices run in this process (each its own
// identity, relay connection, Courier and relay-routed provider, as a guest has).
//
// The devices are grantees (another account's devices under a grant) rather than siblings: a
// sibling receives the whole signed roster as mail, so N siblings cost N² records of mail
// before anything is asked (about 200 MB at 1,000). The serving path is the same past admission.
import BenchSupport
import Courier
import Foundation
import HomebaseAgent
import Inference
import PeerLink
import RelayRouting
import Sealing
import Signing
import Synchronization
import Transport
import Wire
import Basics

struct CrowdResult {
    var streams = 0, devices = 0, completed = 0
    var ttft = Samples()
    var wallMs = 0.0
    var failures: [String: Int] = [:]
    var rssIdleKiB = 0, rssConnectedKiB = 0, rssPeakKiB = 0, rssAfterKiB = 0
    var connectMs = 0.0
    var hostPeakKiB = 0
    /// The same streams straight to llama-server, `slots` at a time (the engine's own pace).
    var directWallMs = 0.0
    var directTTFT = Samples()
    /// CPU seconds of the relay and the Homebase over the streaming, and the frames the devices
    /// saw (every event yielded, about one frame each, plus each request): CPU per frame.
    var relayCPU = 0.0, hostCPU = 0.0, frames = 0
}

final class Crowd: Sendable {
    let identities: [DeviceIdentity]

    /// Device identities, granted the model `tiny` in the Homebase's store before it runs
    /// (the sharing flow writes grants there; the serving path reads them).
    init(devices: Int, hostDataDir: String) throws {
        let now = UInt64(wallClockMs())
        identities = try (0..<devices).map { try DeviceIdentity.generate(name: "crowd-\($0)", now: now) }
        let store = try HostFiles(dataDir: hostDataDir).openStore()
        defer { store.close() }
        for id in identities {
            let grantID = Bytes16(unchecked: (0..<16).map { _ in UInt8.random(in: 0...255) })
            try store.saveGrant(GrantRecord(grantID: grantID, grantee: id.record, models: ["tiny"], createdMs: Int64(now)))
        }
    }

    func run(_ o: Options, relayURL: String, engineURL: String, relay: Child, host: Child,
             hostRecord: DeviceRecord) async throws -> CrowdResult {
        var r = CrowdResult()
        r.streams = o.streams
        r.devices = identities.count
        r.rssIdleKiB = Machine.rssKiB(pid: relay.pid) ?? 0
        // Two event loops carry every device's link (one per vCPU), as PeerLink allows.
        let loops = try (0..<2).map { _ in try EventLoop() }
        for l in loops { try l.start() }
        let directory = Directory([hostRecord])
        var couriers: [Courier] = []
        for (i, id) in identities.enumerated() {
            var config = try PeerLink.Configuration(relayURL: relayURL)
            config.connectTimeout = .seconds(60)
            config.authTimeout = .seconds(60)
            let link = try PeerLink(configuration: config, identity: id.signingKey, loop: loops[i % loops.count])
            couriers.append(Courier(link: link, identity: id, directory: directory))
        }
        // Mail (the Homebase's adverts) is acked and dropped: these devices only ask.
        let drains = couriers.map { c in Task { for await d in c.deliveries { d.ack() } } }
        let connectStart = ContinuousClock.now
        for c in couriers { c.start() }
        let deadline = ContinuousClock.now + .seconds(180)
        while couriers.contains(where: { !$0.link.state.isConnected }) {
            guard ContinuousClock.now < deadline else { throw BenchError("not every crowd device connected within 180 s") }
            try await Task.sleep(for: .milliseconds(50))
        }
        r.connectMs = ms(.now - connectStart)
        try await Task.sleep(for: .seconds(1))  // the mail backlog lands and is acked
        r.rssConnectedKiB = Machine.rssKiB(pid: relay.pid) ?? 0

        let peak = Mutex((relay: 0, host: 0))
        let sampler = Task {
            while !Task.isCancelled {
                let a = Machine.rssKiB(pid: relay.pid) ?? 0, b = Machine.rssKiB(pid: host.pid) ?? 0
                peak.withLock { $0 = (max($0.relay, a), max($0.host, b)) }
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        // Generous rungs: every stream waits its turn for one of the Homebase's slots.
        let limits = WatchdogLimits(accept: .seconds(o.crowdWaitS), firstOutput: .seconds(o.crowdWaitS), stall: .seconds(30))
        let hostKey = hostRecord.signingKey
        let tokens = o.crowdTokens
        let start = ContinuousClock.now
        let cpu0 = (CPU.seconds(pid: relay.pid) ?? 0, CPU.seconds(pid: host.pid) ?? 0)
        let frames = FrameCount()
        let outcomes = await withTaskGroup(of: (ttft: Double?, failure: String?).self) { group in
            for s in 0..<o.streams {
                let courier = couriers[s % couriers.count]
                group.addTask {
                    let provider = HomebaseProvider(kind: .joined, hostKey: hostKey, courier: courier,
                                                    ledger: InMemoryConversationLedger(), limits: limits)
                    let request = ChatRequest(model: "tiny", messages: [.init(role: .user, content: "Stream \(s): hello.")],
                                              maxTokens: tokens)
                    let begin = ContinuousClock.now
                    var first: Double?
                    var seen = 1  // the request
                    defer { frames.add(seen) }
                    do {
                        for try await e in provider.stream(request) {
                            seen += 1
                            if case .text(let t) = e, !t.isEmpty, first == nil { first = ms(.now - begin) }
                            if case .done = e { return (first, first == nil ? "done without text" : nil) }
                        }
                        return (first, "ended without done")
                    } catch {
                        return (first, "\(error)")
                    }
                }
            }
            var all: [(ttft: Double?, failure: String?)] = []
            for await x in group { all.append(x) }
            return all
        }
        r.wallMs = ms(.now - start)
        r.relayCPU = (CPU.seconds(pid: relay.pid) ?? 0) - cpu0.0
        r.hostCPU = (CPU.seconds(pid: host.pid) ?? 0) - cpu0.1
        r.frames = frames.total
        sampler.cancel()
        for x in outcomes {
            if let f = x.failure {
                r.failures[String(f.prefix(80)), default: 0] += 1
            } else {
                r.completed += 1
                if let t = x.ttft { r.ttft.add(t) }
            }
        }
        (r.rssPeakKiB, r.hostPeakKiB) = peak.withLock { ($0.relay, $0.host) }
        r.rssAfterKiB = Machine.rssKiB(pid: relay.pid) ?? 0
        for c in couriers { c.stop() }
        for d in drains { d.cancel() }
        try await Task.sleep(for: .milliseconds(300))
        for l in loops { l.shutdown() }
        (r.directWallMs, r.directTTFT) = await Self.direct(o, engineURL: engineURL)
        return r
    }

    static func print(_ r: CrowdResult, _ o: Options) {
        let failures = r.failures.sorted { $0.value > $1.value }.map { "\($0.value) × \($0.key)" }.joined(separator: "; ")
        Swift.print("""
            ### \(r.streams) concurrent streams through one relay

            \(r.devices) guest devices (grantees), each its own relay connection; \(r.streams) streams started at once \
            (max_tokens \(o.crowdTokens)); the Homebase admits \(o.slots) at a time (max-concurrent = llama-server \
            slots) and queues the rest (queue-length \(o.streams)); the guests' accept and first-output rungs are \(o.crowdWaitS) s so queued streams wait.

            | measure | value |
            |---|---|
            | completed | \(r.completed) of \(r.streams) |
            | time to first token p50 / p99 / max | \(fmt(r.ttft.p50, 0)) / \(fmt(r.ttft.p99, 0)) / \(fmt(r.ttft.max, 0)) ms |
            | all streams done in | \(fmt(r.wallMs, 0)) ms |
            | the same \(r.streams) streams straight to llama-server, \(o.slots) at a time: done in / TTFT p50 / p99 | \(fmt(r.directWallMs, 0)) ms / \(fmt(r.directTTFT.p50, 0)) / \(fmt(r.directTTFT.p99, 0)) ms (relayed wall time = \(fmt(r.wallMs / r.directWallMs, 2))x) |
            | \(r.devices) devices connected and authenticated in | \(fmt(r.connectMs, 0)) ms |
            | relay RSS: idle → \(r.devices) connected → peak while streaming → after | \(kib(r.rssIdleKiB)) → \(kib(r.rssConnectedKiB)) → \(kib(r.rssPeakKiB)) → \(kib(r.rssAfterKiB)) |
            | relay RSS per connected device | \(fmt(Double(r.rssConnectedKiB - r.rssIdleKiB) / Double(max(1, r.devices)), 2)) KiB |
            | Homebase RSS peak | \(kib(r.hostPeakKiB)) |
            | relay CPU while streaming (user + system) / frames the devices saw / per frame | \(fmt(r.relayCPU * 1000, 0)) ms / \(r.frames) / \(fmt(r.relayCPU * 1e6 / Double(max(1, r.frames)), 1)) µs |
            | Homebase CPU while streaming / per frame | \(fmt(r.hostCPU * 1000, 0)) ms / \(fmt(r.hostCPU * 1e6 / Double(max(1, r.frames)), 1)) µs |
            \(failures.isEmpty ? "" : "| failures | \(failures) |\n")
            """)
    }

    static func kib(_ k: Int) -> String { "\(fmt(Double(k) / 1024, 1)) MiB" }
}

/// The one host record every crowd device talks to.
final class Directory: DeviceDirectory {
    let records: [PublicKey: DeviceRecord]
    init(_ list: [DeviceRecord]) { records = Dictionary(uniqueKeysWithValues: list.map { ($0.signingKey, $0) }) }
    func record(for key: PublicKey) -> DeviceRecord? { records[key] }
}

/// Frames seen by the crowd's devices, added from every stream's task.
final class FrameCount: Sendable {
    private let n = Mutex(0)
    func add(_ k: Int) { n.withLock { $0 += k } }
    var total: Int { n.withLock { $0 } }
}
