/// Every failure of the ModelStore module.
///
/// Messages name the URL's host and path, the repo or the file; they never carry a token or
/// a request header.
public enum ModelStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The network is unreachable: the host refused, could not be resolved or did not answer
    /// the connect in time. Raised at once, never retried in a loop.
    case offline(host: String, detail: String)
    /// The server answered with a status we cannot use.
    case httpStatus(url: String, status: Int)
    /// The hub's JSON did not have the expected shape.
    case badResponse(url: String, detail: String)
    /// The connection broke or stalled mid-transfer.
    case interrupted(url: String, detail: String)
    /// Any other transfer failure (libcurl's message).
    case transfer(url: String, detail: String)
    /// The transfer was cancelled by its caller.
    case cancelled
    /// A custom repo id that is not `owner/name` of id-safe characters.
    case invalidRepoID(String)
    /// The repo exists on the hub, but not as we need it (no GGUF file, unknown quant).
    case repoUnusable(repo: String, detail: String)
    /// A downloaded file does not match the size or ETag the hub announced.
    case integrity(file: String, detail: String)
    /// A model id the store does not know.
    case unknownModel(String)
    /// The model cannot run here (architecture, load failure reported as unsupported). Terminal.
    case unsupported(model: String, detail: String)
    /// The model's state forbids the operation (for example, selecting a failed model).
    case invalidState(model: String, state: String, operation: String)
    /// The file system refused (create, write, rename).
    case io(path: String, detail: String)

    public var description: String {
        switch self {
        case let .offline(host, detail): return "offline: cannot reach \(host) (\(detail))"
        case let .httpStatus(url, status): return "HTTP \(status) from \(url)"
        case let .badResponse(url, detail): return "unexpected response from \(url): \(detail)"
        case let .interrupted(url, detail): return "transfer from \(url) interrupted: \(detail)"
        case let .transfer(url, detail): return "transfer from \(url) failed: \(detail)"
        case .cancelled: return "cancelled"
        case let .invalidRepoID(id):
            return "invalid repo id \"\(id)\": expected owner/name (letters, digits, '-', '_', '.')"
        case let .repoUnusable(repo, detail): return "repo \(repo) cannot be used: \(detail)"
        case let .integrity(file, detail): return "downloaded \(file) is not what the hub announced: \(detail)"
        case let .unknownModel(id): return "unknown model \(id)"
        case let .unsupported(model, detail): return "model \(model) is not supported here: \(detail)"
        case let .invalidState(model, state, operation): return "cannot \(operation) model \(model): it is \(state)"
        case let .io(path, detail): return "file error at \(path): \(detail)"
        }
    }
}
