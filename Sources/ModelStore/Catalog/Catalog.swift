import Foundation

/// The browser's data: the hub's GGUF repos of the configured organisations, through the funnel,
/// cached on disk for `maxAge` (instant and offline after the first load).
public struct Catalog: Sendable {
    public struct Config: Sendable {
        public var hub: HubConfig
        /// Directory of the cache file (`catalog.json`); must exist.
        public var cacheDirectory: String
        /// A snapshot younger than this is used without asking the hub.
        public var maxAge: Duration
        /// Hide tiers needing more RAM than this; nil reads /proc/meminfo.
        public var machineMemory: Int64?

        public init(hub: HubConfig, cacheDirectory: String, maxAge: Duration = .seconds(7 * 24 * 3600),
                    machineMemory: Int64? = nil)
        {
            self.hub = hub
            self.cacheDirectory = cacheDirectory
            self.maxAge = maxAge
            self.machineMemory = machineMemory ?? Catalog.physicalMemory()
        }
    }

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

    /// Lists every organisation in parallel, merges (the funnel keeps a repo id's first listing), then
    /// reads the trees of the repos that can pass the gate, a few at a time.
    func fetch(now: Date) async throws -> CatalogSnapshot {
        let hub = self.hub
        let orgs = config.hub.organisations
        let lists = try await withThrowingTaskGroup(of: (Int, [HubModel]).self) { group in
            for (i, org) in orgs.enumerated() { group.addTask { (i, try await hub.listModels(author: org)) } }
            var out = [[HubModel]](repeating: [], count: orgs.count)
            for try await (i, list) in group { out[i] = list }
            return out
        }
        // Kept merged but not de-duplicated: the funnel does that and counts it.
        let models = Array(lists.joined())
        var seen = Set<String>()
        let worthSizing = models.filter {
            seen.insert($0.id.lowercased()).inserted
                && Capability.architectureAllowed($0.gguf?.architecture) && NameParser.parse(repoID: $0.id) != nil
                && Capability.toolCapable(template: $0.gguf?.chatTemplate, repoID: $0.id)
        }.map(\.id)
        let trees = try await fetchTrees(worthSizing)
        return CatalogSnapshot(fetchedAt: now, models: models, trees: trees)
    }

    /// A repo whose tree cannot be read keeps its estimated sizes; offline aborts the whole fetch.
    func fetchTrees(_ repos: [String]) async throws -> [String: [HubFile]] {
        let hub = self.hub
        let width = config.hub.treeConcurrency
        return try await withThrowingTaskGroup(of: (String, [HubFile]?).self) { group in
            var trees: [String: [HubFile]] = [:]
            var pending = repos[...]
            func next() {
                guard let repo = pending.popFirst() else { return }
                group.addTask {
                    do { return (repo, try await hub.tree(repo: repo)) }
                    catch let e as ModelStoreError where e.isOffline { throw e }
                    catch { return (repo, nil) }
                }
            }
            for _ in 0..<width { next() }
            for try await (repo, tree) in group {
                if let tree { trees[repo] = tree }
                next()
            }
            return trees
        }
    }

    /// One repo's row without the gate (custom repos, shortlist picks): its tree is read now,
    /// so a bad id fails here with a clear error.
    public func entry(repo: String) async throws -> CatalogEntry {
        let tree: [HubFile]
        do {
            tree = try await hub.tree(repo: repo)
        } catch ModelStoreError.httpStatus(_, let status) where status == 404 || status == 401 {
            throw ModelStoreError.repoUnusable(repo: repo, detail: "not found on the hub (HTTP \(status))")
        }
        let listed = cache.load()?.models.first { $0.id == repo } ?? HubModel(id: repo)
        let name = NameParser.parse(repoID: repo)
            ?? ParsedName(family: repo.split(separator: "/").last.map(String.init) ?? repo, series: "", size: "", parameters: nil)
        let entry = CatalogBuilder.entry(listed, name: name, tree: tree, provisional: true)
        guard !entry.tiers.isEmpty else {
            throw ModelStoreError.repoUnusable(repo: repo, detail: "no GGUF model file with a known quant")
        }
        return entry
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
