/// Where a model is. `unsupported` is terminal; `ready` only after llama-server loaded it.
public enum ModelState: Sendable, Equatable, CustomStringConvertible {
    /// It cannot run here (the load check said so). Never leaves this state.
    case unsupported(reason: String)
    /// Not on disk (never pulled, cancelled).
    case absent
    /// Files arriving (or being load-checked once all are there).
    case downloading(DownloadProgress)
    /// On disk and loaded once by llama-server.
    case ready
    /// The last pull failed; pulling again resumes from what is on disk.
    case failed(reason: String)

    /// The name stored in the database and shown by `list`.
    public var name: String {
        switch self {
        case .unsupported: return "unsupported"
        case .absent: return "absent"
        case .downloading: return "downloading"
        case .ready: return "ready"
        case .failed: return "failed"
        }
    }

    public var description: String {
        switch self {
        case let .unsupported(reason): return "unsupported (\(reason))"
        case .absent: return "absent"
        case let .downloading(p):
            return p.fraction.map { "downloading \(Int(($0 * 100).rounded(.down)))%" } ?? "downloading"
        case .ready: return "ready"
        case let .failed(reason): return "failed (\(reason))"
        }
    }
}

/// One model the store knows: a repo's quant tier.
public struct ModelRecord: Sendable, Equatable {
    /// `owner/name:QUANT`.
    public var id: String
    public var repo: String
    public var quant: String
    /// Paths in the repo, model file (or shards, first shard first) then the projector.
    public var files: [String]
    public var projector: String?
    /// Expected bytes of all files, when the hub said.
    public var bytes: Int64?
    public var state: ModelState
    /// From a custom repo or the shortlist, not yet loaded once.
    public var provisional: Bool

    /// `owner/name:QUANT`.
    public static func id(repo: String, quant: String) -> String { "\(repo):\(quant.uppercased())" }
}

/// What the guest's load check gets: the paths llama-server needs.
public struct LoadCandidate: Sendable, Equatable {
    public var id: String
    /// The model file (the first shard for a split model: llama.cpp finds the rest).
    public var modelPath: String
    /// `--mmproj`, when the model has one.
    public var projectorPath: String?
}
