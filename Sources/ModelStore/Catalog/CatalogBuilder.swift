/// The funnel, pure: hub listing (+ trees) in, browser rows out. Order of the filters:
/// de-duplicate → architecture allowlist → name parser → tool gate → vision gate (unless text-only
/// models are asked for) → loadable files → fits the machine.
struct CatalogBuilder {
    /// Show tool-capable models that cannot see.
    var includeTextOnly = false
    /// Tiers needing more RAM than this are hidden (nil: no limit).
    var machineMemory: Int64?

    func build(models: [HubModel], trees: [String: [HubFile]]) -> (entries: [CatalogEntry], report: FunnelReport) {
        var report = FunnelReport()
        report.listed = models.count
        var seen = Set<String>()
        var entries: [CatalogEntry] = []
        for model in models {
            guard seen.insert(model.id.lowercased()).inserted else {
                report.duplicates += 1
                continue
            }
            guard Capability.architectureAllowed(model.gguf?.architecture) else {
                report.architecture += 1
                continue
            }
            guard let name = NameParser.parse(repoID: model.id) else {
                report.unparsed += 1
                continue
            }
            guard Capability.toolCapable(template: model.gguf?.chatTemplate, repoID: model.id) else {
                report.notToolCapable += 1
                continue
            }
            let fileNames = trees[model.id]?.map(\.path) ?? model.files
            let vision = Capability.visionCapable(pipelineTag: model.pipelineTag, files: fileNames)
            guard vision || includeTextOnly else {
                report.notVisionCapable += 1
                continue
            }
            var entry = CatalogBuilder.entry(model, name: name, tree: trees[model.id], vision: vision)
            guard !entry.tiers.isEmpty else {
                report.noLoadableFile += 1
                continue
            }
            if let limit = machineMemory {
                entry.tiers = entry.tiers.filter { ($0.recommendedRAM ?? 0) <= limit }
                if entry.tiers.isEmpty {
                    report.tooBig += 1
                    continue
                }
            }
            entries.append(entry)
        }
        report.shown = entries.count
        return (CatalogBuilder.sorted(entries), report)
    }

    /// The row for one repo, with no gate (custom repos and shortlist picks use this directly).
    static func entry(_ model: HubModel, name: ParsedName, tree: [HubFile]?, vision: Bool? = nil,
                      provisional: Bool = false) -> CatalogEntry
    {
        let files: [(path: String, size: Int64?)] = tree.map { $0.map { ($0.path, $0.byteCount) } }
            ?? model.files.map { ($0, nil) }
        let parameters = model.gguf?.total.map(Double.init) ?? name.parameters
        return CatalogEntry(
            repo: model.id, name: name, architecture: model.gguf?.architecture,
            contextLength: model.gguf?.contextLength,
            toolCapable: Capability.toolCapable(template: model.gguf?.chatTemplate, repoID: model.id),
            visionCapable: vision ?? Capability.visionCapable(pipelineTag: model.pipelineTag, files: files.map(\.path)),
            tiers: Sizing.tiers(files: files, parameters: parameters), provisional: provisional)
    }

    /// Family, series, then parameters (size words last), then size label, then repo.
    static func sorted(_ entries: [CatalogEntry]) -> [CatalogEntry] {
        entries.sorted { a, b in
            if a.name.family != b.name.family { return a.name.family.lowercased() < b.name.family.lowercased() }
            if a.name.series != b.name.series { return a.name.series < b.name.series }
            let pa = a.name.parameters ?? .infinity, pb = b.name.parameters ?? .infinity
            if pa != pb { return pa < pb }
            if a.name.size != b.name.size { return a.name.size < b.name.size }
            return a.repo < b.repo
        }
    }
}
