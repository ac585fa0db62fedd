import Foundation
import GuestAgent
import ModelStore

/// What `guest models ...` prints: the text, and the same facts structured for `--json`.
struct CommandOutput: Sendable {
    var text: String
    var entries: [CatalogEntry] = []
    var models: [ModelRecord] = []
    /// `browse`: the catalog could not be read (none on file, no network): the shortlist is what ships.
    var offline = false
}

/// The command layer of `guest models`: browse, search, pull, cancel, list, use, delete, add-repo.
struct ModelCommands: Sendable {
    let catalog: Catalog
    let store: ModelStore
    let shortlist: [ShortlistItem]

    init(catalog: Catalog, store: ModelStore, shortlist: [ShortlistItem] = ShortlistItem.defaults) {
        self.catalog = catalog
        self.store = store
        self.shortlist = shortlist
    }

    /// The catalog as a tree: family → series → size → quant tiers, then the shortlist and the
    /// custom repos. `all` adds tool-capable models without vision; `refresh` re-fetches.
    func browse(all: Bool = false, refresh: Bool = false) async throws -> CommandOutput {
        var text: String
        var entries: [CatalogEntry] = []
        var offline = false
        do {
            let result = try await catalog.entries(includeTextOnly: all, refresh: refresh)
            entries = result.entries
            text = CatalogText.tree(result.entries)
            if result.stale { text += "(offline: showing the catalog fetched \(result.fetchedAt))\n" }
        } catch {
            // A first run without network has no catalog on file: the shortlist ships with guest.
            offline = true
            text = "(offline: no catalog on file and it cannot be fetched now: \(error))\n"
        }
        text += offline ? "\nShortlist (offline: shipped with guest; guest models pull NAME needs the network):\n"
            : "\nShortlist (guest models pull NAME):\n"
        for item in shortlist { text += "  \(item.name)  \(item.summary)\n" }
        let custom = try store.customRepos()
        if !custom.isEmpty {
            text += "\nCustom repos:\n"
            for c in custom { text += "  \(c.repo)\(c.provisional ? "  (provisional)" : "")\n" }
        }
        return CommandOutput(text: text, entries: entries, offline: offline)
    }

    /// Rows whose repo, family, series or size contains every word of `query` (case-insensitive).
    func search(_ query: String, all: Bool = false) async throws -> CommandOutput {
        let words = query.lowercased().split(separator: " ")
        let rows = try await catalog.entries(includeTextOnly: all).entries.filter { e in
            let hay = "\(e.repo) \(e.name.family) \(e.name.series) \(e.name.size)".lowercased()
            return words.allSatisfy { hay.contains($0) }
        }
        let text = rows.isEmpty ? "no model matches \"\(query)\"\n" : CatalogText.tree(rows)
        return CommandOutput(text: text, entries: rows)
    }

    /// `target`: a shortlist name, or `owner/name[:QUANT]` (catalog row or custom repo).
    func pull(_ target: String, progress: @escaping @Sendable (DownloadProgress) -> Void = { _ in }) async throws
        -> CommandOutput
    {
        let (repo, quant, provisional) = try resolve(target)
        // The same lock the background fetcher holds: never two downloads of one model.
        let lock = try quant.map { q -> FetchLock in
            let id = ModelRecord.id(repo: repo, quant: q)
            guard let lock = try FetchLock.acquire(store.fetchLockPath(id)) else {
                throw ModelStoreError.invalidState(model: id, state: "downloading in the background (guest models list)",
                                                   operation: "pull")
            }
            return lock
        }
        let record = try await store.pull(repo: repo, quant: quant, provisional: provisional, progress: progress)
        withExtendedLifetime(lock) {}
        // A wish for it (a sibling's choice, a failed background download retried) is fulfilled.
        let selected = try store.fulfilWish(record.id)
        return CommandOutput(text: "\(record.id): \(record.state)\(selected ? " (selected: a sibling chose it)" : "")\n",
                             models: [record])
    }

    func cancel(_ id: String) async throws -> CommandOutput {
        try store.dropWish(id)
        try await store.cancel(id)
        return CommandOutput(text: "\(id): cancelled\n", models: [])
    }

    /// Every model the store knows, with its state, size, and the selection marked `*`.
    func list() throws -> CommandOutput {
        let models = try store.list()
        let selected = try store.selection()
        var text = models.isEmpty ? "no models yet: guest models browse\n" : ""
        for m in models {
            let size = m.bytes.map { ProgressFormatter.bytes($0) } ?? "size unknown"
            text += "\(m.id == selected ? "*" : " ") \(m.id)  \(m.state)  \(size)\(m.provisional ? "  (provisional)" : "")\n"
        }
        let background = store.backgroundDownloads()
        if !background.isEmpty {
            text += "\nIn the background:\n" + background.map { "  \($0.line)\n" }.joined()
        }
        return CommandOutput(text: text, models: models)
    }

    func use(_ id: String) throws -> CommandOutput {
        try store.select(id)
        try store.replaceWishes(with: nil)  // this choice is newer than any wish to select
        return CommandOutput(text: "using \(id)\n", models: [try store.record(id)])
    }

    func delete(_ id: String) async throws -> CommandOutput {
        try store.dropWish(id)
        try await store.delete(id)
        let now = try store.selection()
        return CommandOutput(text: "deleted \(id); selected: \(now ?? "built-in")\n")
    }

    /// Adds a custom repo (no network check: a bad id fails at pull with a clear error).
    func addRepo(_ id: String) throws -> CommandOutput {
        let added = try store.addCustomRepo(id)
        return CommandOutput(text: added ? "added \(id) (provisional until it loads)\n" : "\(id) is already added\n")
    }

    func resolve(_ target: String) throws -> (repo: String, quant: String?, provisional: Bool) {
        if let item = shortlist.first(where: { $0.name == target.lowercased() }) { return (item.repo, item.quant, true) }
        let parts = target.split(separator: ":", maxSplits: 1).map(String.init)
        let repo = try RepoID.validate(parts.first ?? "")
        let custom = try store.customRepos().contains { $0.repo.lowercased() == repo.lowercased() }
        return (repo, parts.count > 1 ? parts[1] : nil, custom)
    }
}

extension GuestContext {
    /// `guest models` commands on this context's store.
    func modelCommands() -> ModelCommands {
        try? FileManager.default.createDirectory(atPath: paths.catalogCache, withIntermediateDirectories: true)
        return ModelCommands(catalog: Catalog(config: .init(hub: configuration.hub, cacheDirectory: paths.catalogCache)),
                             store: modelStore)
    }
}
