import Foundation

/// The browser's data: the hub's GGUF repos of the configured organisations, through the funnel,
/// cached on disk for `maxAge` (instant and offline after the first load).
public struct Catalog: Sendable {

    /// Rows and how they were obtained.
    public struct Result: Sendable {
        public var entries: [CatalogEntry]
        public var report: FunnelReport
        public var fetchedAt: Date
        /// True when the hub could not be reached and an expired snapshot was used.
        public var stale: Bool
    }

    public let config: Config
    let hub: HubClient
    let cache: CatalogCache

    public init(config: Config) {
        self.config = config
        hub = HubClient(config: config.hub)
        cache = CatalogCache(path: (config.cacheDirectory as NSString).appendingPathComponent("catalog.json"))
    }

    /// The rows. `includeTextOnly` shows tool-capable models without vision; `refresh` re-fetches.
    public func entries(includeTextOnly: Bool = false, refresh: Bool = false, now: Date = Date()) async throws -> Result {
        let (snapshot, stale) = try await snapshot(refresh: refresh, now: now)
        let builder = CatalogBuilder(includeTextOnly: includeTextOnly, machineMemory: config.machineMemory)
        let (entries, report) = builder.build(models: snapshot.models, trees: snapshot.trees)
        return Result(entries: entries, report: report, fetchedAt: snapshot.fetchedAt, stale: stale)
    }

    /// The cached snapshot if young enough, else a fresh one; an expired snapshot still serves
    /// (marked stale) when the hub is offline.
    public func snapshot(refresh: Bool = false, now: Date = Date()) async throws -> (CatalogSnapshot, stale: Bool) {
        let cached = cache.load()
        if !refresh, let cached, now.timeIntervalSince(cached.fetchedAt) < seconds(config.maxAge) {
            return (cached, false)
        }
        do {
            let fresh = try await fetch(now: now)
            try cache.save(fresh)
            return (fresh, false)
        } catch ModelStoreError.offline(let host, let detail) {
            if let cached { return (cached, true) }
            throw ModelStoreError.offline(host: host, detail: detail)
        }
    }

    func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// MemTotal from /proc/meminfo, nil if unreadable.
    public static func physicalMemory() -> Int64? {
        guard let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("MemTotal:") }),
              let kb = line.split(separator: " ").dropFirst().first.flatMap({ Int64($0) })
        else { return nil }
        return kb * 1024
    }
}

extension ModelStoreError {
    var isOffline: Bool {
        if case .offline = self { return true }
        return false
    }
}
