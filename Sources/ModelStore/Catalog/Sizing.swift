/// Turns a repo's file list into quant tiers with honest sizes.
///
/// Exact when the tree gave sizes (shards summed, projector added); otherwise estimated from
/// parameters × the quant's calibrated bytes per parameter, and labelled as an estimate.
enum Sizing {
    /// `name-00001-of-00003.gguf`: llama.cpp's split naming.
    static func shard(_ path: String) -> (base: String, index: Int, count: Int)? {
        guard path.lowercased().hasSuffix(".gguf") else { return nil }
        let stem = path.dropLast(5)
        let parts = stem.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[parts.count - 2] == "of",
              let index = Int(parts[parts.count - 3]), let count = Int(parts[parts.count - 1]),
              parts[parts.count - 3].count == 5, parts[parts.count - 1].count == 5, (1...count).contains(index)
        else { return nil }
        return (parts.dropLast(3).joined(separator: "-"), index, count)
    }

    /// - Parameters:
    ///   - files: paths with sizes when the tree was read (`nil` sizes: names only).
    ///   - parameters: the model's parameter count, for estimates.
    static func tiers(files: [(path: String, size: Int64?)], parameters: Double?) -> [QuantTier] {
        let ggufs = files.filter { $0.path.lowercased().hasSuffix(".gguf") }
        let projectors = ggufs.filter { Capability.isProjector($0.path) }
        let projector = preferredProjector(projectors.map(\.path))
        let projectorSize = projector.flatMap { p in projectors.first { $0.path == p }?.size }
        var sizes: [String: Int64?] = [:]
        for f in ggufs { sizes[f.path] = f.size }

        // Group model files by (quant, unsharded base name); keep the shortest-named group per quant.
        var groups: [String: [String]] = [:]
        for f in ggufs where !Capability.isProjector(f.path) {
            guard let quant = Quant.parse(fileName: f.path) else { continue }
            let base = shard(f.path)?.base ?? f.path
            groups["\(quant.name)\u{0}\(base)", default: []].append(f.path)
        }
        var best: [Quant: [String]] = [:]
        for (key, paths) in groups {
            let quant = Quant(String(key.split(separator: "\u{0}")[0]))!
            guard let ordered = completeSet(paths) else { continue }
            if let current = best[quant], current[0].count <= ordered[0].count { continue }
            best[quant] = ordered
        }
        return best.keys.sorted().map { quant in
            let paths = best[quant]!
            let known = paths.compactMap { sizes[$0] ?? nil }
            let all = projector == nil ? known.count == paths.count : known.count == paths.count && projectorSize != nil
            if all {
                return QuantTier(quant: quant, files: paths, projector: projector,
                                 bytes: known.reduce(0, +) + (projectorSize ?? 0), exact: true)
            }
            let estimate = parameters.map { Int64($0 * quant.bytesPerParameter) }
            return QuantTier(quant: quant, files: paths, projector: projector, bytes: estimate, exact: false)
        }
    }

    /// A single file, or every shard 1...n exactly once, in order; nil for an incomplete set.
    static func completeSet(_ paths: [String]) -> [String]? {
        if paths.count == 1, shard(paths[0]) == nil { return paths }
        let shards = paths.compactMap { p in shard(p).map { (p, $0.index, $0.count) } }
        guard shards.count == paths.count, let count = shards.first?.2, shards.count == count,
              Set(shards.map(\.1)) == Set(1...count)
        else { return nil }
        return shards.sorted { $0.1 < $1.1 }.map(\.0)
    }

    /// F16 first (what llama.cpp's converters publish), then BF16, Q8_0, any.
    static func preferredProjector(_ paths: [String]) -> String? {
        for wanted in ["F16", "BF16", "Q8_0", "F32"] {
            if let p = paths.sorted().first(where: { Quant.parse(fileName: $0)?.name == wanted }) { return p }
        }
        return paths.sorted().first
    }
}
