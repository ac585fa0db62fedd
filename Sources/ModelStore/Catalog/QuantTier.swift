/// One downloadable choice of a repo: a quant's file (or shards) plus the vision projector.
public struct QuantTier: Codable, Sendable, Equatable {
    public var quant: Quant
    /// The model file, or its shards in order (`-00001-of-00003.gguf` first: llama.cpp opens it).
    public var files: [String]
    /// The `mmproj` file vision needs, downloaded with the model.
    public var projector: String?
    /// Bytes on disk: files and projector. Nil when neither sizes nor parameters are known.
    public var bytes: Int64?
    /// True when `bytes` sums the hub's file sizes; false when estimated from parameters.
    public var exact: Bool

    /// Every file to download, model first.
    public var allFiles: [String] { files + (projector.map { [$0] } ?? []) }

    /// RAM to run it: weights + 20% (KV cache of a few thousand tokens and compute buffers)
    /// + 512 MiB for the server itself, rounded up to half a GiB.
    public var recommendedRAM: Int64? {
        guard let bytes else { return nil }
        let raw = Double(bytes) * 1.2 + Double(512 << 20)
        let half = Double(1 << 29)
        return Int64((raw / half).rounded(.up) * half)
    }
}
