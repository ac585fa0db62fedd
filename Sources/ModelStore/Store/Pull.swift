import Foundation

extension ModelStore {
    /// Downloads one quant of `repo` (Q4_K_M or the nearest when `quant` is nil), load-checks it
    /// and marks it ready. Returns at once for a ready model. `provisional` for custom repos and
    /// shortlist picks. Task cancellation interrupts (the .part files stay for a resume);
    /// `cancel(_:)` abandons (files removed).
    @discardableResult
    public func pull(repo: String, quant: String? = nil, provisional: Bool = false,
                     progress: @escaping @Sendable (DownloadProgress) -> Void = { _ in }) async throws -> ModelRecord
    {
        let tree = try await treeOrClearError(repo)
        let entry = CatalogBuilder.entry(HubModel(id: repo), name: NameParser.parse(repoID: repo)
            ?? ParsedName(family: repo, series: "", size: "", parameters: nil), tree: tree, provisional: provisional)
        guard let tier = quant.map({ entry.tier($0) }) ?? entry.defaultTier else {
            throw ModelStoreError.repoUnusable(repo: repo, detail: quant.map { "no \($0.uppercased()) GGUF file" }
                ?? "no GGUF model file with a known quant")
        }
        let id = ModelRecord.id(repo: repo, quant: tier.quant.name)
        let items = tier.allFiles.map { file -> DownloadItem in
            let meta = tree.first { $0.path == file }
            return DownloadItem(url: hub.resolveURL(repo: repo, file: file), destination: path(repo: repo, file: file),
                                expectedSize: meta?.byteCount, etag: meta?.lfs?.oid,
                                sha256: meta?.lfs.map { $0.oid.lowercased() }.flatMap { FileDigest.isSHA256($0) ? $0 : nil })
        }
        let candidate = LoadCandidate(id: id, modelPath: path(repo: repo, file: tier.files[0]),
                                      projectorPath: tier.projector.map { path(repo: repo, file: $0) })
        // Reserve, start the attempt and register its task in one critical section: a cancel
        // either sees the task or finds the row not yet downloading (and the pull then starts).
        let started = try active.withLock { running throws -> Active? in
            guard running[id] == nil else {
                throw ModelStoreError.invalidState(model: id, state: "downloading", operation: "pull")
            }
            guard let attempt = try begin(id: id, repo: repo, quant: tier.quant.name, tier: tier, provisional: provisional) else {
                return nil
            }
            let task = Task { try await self.run(id: id, attempt: attempt, items: items, candidate: candidate, progress: progress) }
            running[id] = Active(attempt: attempt, task: task)
            return running[id]
        }
        guard let started else { return try record(id) }  // already ready
        let task = started.task
        defer { active.withLock { if $0[id]?.attempt == started.attempt { $0[id] = nil } } }
        try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
        return try record(id)
    }

    /// Download, load check, verdict; every write guarded by `attempt`.
    func run(id: String, attempt: Int, items: [DownloadItem], candidate: LoadCandidate,
             progress: @escaping @Sendable (DownloadProgress) -> Void) async throws
    {
        let downloader = Downloader(http: hub.http, token: config.hub.token, tokenHost: hub.hubHost,
                                    maxResumes: config.maxResumes, progressStep: config.progressStep)
        do {
            try await whileCurrent(id: id, attempt: attempt) {
                try await downloader.run(items) { p in
                    if self.recordProgress(id: id, attempt: attempt, received: p.received) { progress(p) }
                }
            }
            try Task.checkCancellation()
            guard isCurrent(id: id, attempt: attempt) else { throw ModelStoreError.cancelled }
            try await verifyLoad(candidate)
            guard settle(id: id, attempt: attempt, to: .ready) else { throw ModelStoreError.cancelled }
        } catch {
            // A cancel (or a newer pull) already moved the row: its verdict stands, ours is dropped.
            guard isCurrent(id: id, attempt: attempt) else { throw ModelStoreError.cancelled }
            if let e = error as? ModelStoreError, case let .unsupported(_, detail) = e {
                settle(id: id, attempt: attempt, to: .unsupported(reason: detail))
                removeFiles(of: id, includingComplete: true)
                throw error
            }
            if error is CancellationError || (error as? ModelStoreError) == .cancelled {
                settle(id: id, attempt: attempt, to: .failed(reason: "interrupted; pull again to resume"))
                throw ModelStoreError.cancelled
            }
            settle(id: id, attempt: attempt, to: .failed(reason: "\(error)"))
            throw error
        }
    }

    /// Runs `body` and, beside it, checks every `cancelPoll` that the row is still this attempt's
    /// download: when a cancel (from any process) or a newer pull moved it on, `body` is
    /// cancelled at once instead of fetching the rest of a file nobody wants.
    func whileCurrent(id: String, attempt: Int, _ body: @escaping @Sendable () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask { try await body(); return true }
            group.addTask {
                while true {
                    try await Task.sleep(for: self.config.cancelPoll)
                    if !self.isCurrent(id: id, attempt: attempt) { throw ModelStoreError.cancelled }
                }
            }
            defer { group.cancelAll() }
            _ = try await group.next()  // the body's end, or the first error of either
        }
    }

    /// Abandons a download: the row goes back to absent (never failed, never ready) and the
    /// partial and finished files of this model are removed. Waits for the task to stop first.
    public func cancel(_ id: String) async throws {
        let wasDownloading = try markCancelled(id: id)
        let running = active.withLock { $0[id] }
        running?.task.cancel()
        _ = await running?.task.result
        if wasDownloading || running != nil { removeFiles(of: id, includingComplete: true) }
    }

    /// Removes the model's files and its row; a selection of it falls back to the default.
    public func delete(_ id: String) async throws {
        _ = try record(id)
        try await cancel(id)
        removeFiles(of: id, includingComplete: true)
        try db.transaction { tx in
            try tx.execute("DELETE FROM model WHERE id = ?", id)
            try tx.execute("DELETE FROM setting WHERE key = 'selected' AND value = ?", id)
        }
    }

    /// Deletes `.part` files and (if asked) finished files of `id` that no other non-absent model
    /// of the same repo uses (quants of one repo share the projector).
    func removeFiles(of id: String, includingComplete: Bool) {
        guard let record = try? record(id) else { return }
        let others = (try? list())?.filter { $0.repo == record.repo && $0.id != id && $0.state != .absent } ?? []
        let shared = Set(others.flatMap(\.files))
        for file in record.files where !shared.contains(file) {
            let p = path(repo: record.repo, file: file)
            try? FileManager.default.removeItem(atPath: p + ".part")
            if includingComplete { try? FileManager.default.removeItem(atPath: p) }
        }
    }

    /// The tree, with a 404/401 said plainly: a custom repo id that does not exist fails here.
    func treeOrClearError(_ repo: String) async throws -> [HubFile] {
        do {
            return try await hub.tree(repo: repo)
        } catch ModelStoreError.httpStatus(_, let status) where status == 404 || status == 401 {
            throw ModelStoreError.repoUnusable(repo: repo, detail: "not found on the hub (HTTP \(status))")
        }
    }
}
