import ModelStore

/// The browser tree as text: family, series, size rows, one line per quant tier.
enum CatalogText {
    static func tree(_ entries: [CatalogEntry]) -> String {
        var out = ""
        var family = "", series = ""
        for e in entries {
            if e.name.family != family {
                family = e.name.family
                series = ""
                out += "\(family)\n"
            }
            if e.name.series != series {
                series = e.name.series
                out += "  \(series)\n"
            }
            let marks = [e.visionCapable ? "vision" : nil, e.toolCapable ? "tools" : nil, e.provisional ? "provisional" : nil]
                .compactMap { $0 }.joined(separator: ", ")
            out += "    \(e.name.size)  \(e.repo)  [\(marks)]\n"
            for t in e.tiers { out += "      \(t.quant.name)  \(size(t))\n" }
        }
        return out
    }

    /// `1.9 GB, needs 3.0 GB RAM` or `~1.9 GB (estimate), ...`.
    static func size(_ t: QuantTier) -> String {
        guard let bytes = t.bytes else { return "size unknown" }
        let shown = t.exact ? ProgressFormatter.bytes(bytes) : "~\(ProgressFormatter.bytes(bytes)) (estimate)"
        return shown + (t.recommendedRAM.map { ", needs \(ProgressFormatter.bytes($0)) RAM" } ?? "")
    }
}
