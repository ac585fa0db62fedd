import Foundation

/// Asking the hub: listings in parallel, trees a few at a time, one repo on demand.
extension Catalog {
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
}
