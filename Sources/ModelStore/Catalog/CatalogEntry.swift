/// One row of the browser: a repo that passed the funnel, with its quant tiers.
public struct CatalogEntry: Codable, Sendable, Equatable {
    /// `owner/name`.
    public var repo: String
    public var name: ParsedName
    public var architecture: String?
    public var contextLength: Int?
    public var toolCapable: Bool
    public var visionCapable: Bool
    /// Sorted by bits (Q4 before Q5 before Q8 before F16/BF16).
    public var tiers: [QuantTier]
    /// A custom repo or a shortlist pick that skipped the gate: shown as provisional until it loads.
    public var provisional: Bool

    /// The tier `pull` takes when none is named: Q4_K_M if offered, else the smallest at 4 bits
    /// or more, else the smallest.
    public var defaultTier: QuantTier? {
        tiers.first { $0.quant.name == "Q4_K_M" } ?? tiers.first { $0.quant.bits >= 4 } ?? tiers.first
    }

    public func tier(_ quant: String) -> QuantTier? {
        tiers.first { $0.quant.name == quant.uppercased() }
    }
}

/// What the funnel dropped at each step, in order: for `browse` to say why a repo is missing.
public struct FunnelReport: Sendable, Equatable {
    public var listed = 0
    public var duplicates = 0
    public var architecture = 0
    public var unparsed = 0
    public var notToolCapable = 0
    public var notVisionCapable = 0
    public var noLoadableFile = 0
    public var tooBig = 0
    public var shown = 0
}
