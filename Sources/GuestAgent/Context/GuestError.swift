/// Every failure of the GuestAgent module, with a message a person can act on.
///
/// Messages name files, binaries and ports, never a prompt, an answer or a key.
public enum GuestError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No `llama-server` binary in the config, on PATH, or in the engine directory.
    case engineNotFound(searched: [String])
    /// No GGUF model to serve (none selected, none configured), with why.
    case noLocalModel(String)
    /// The model file named by the selection or the config does not exist.
    case modelFileMissing(path: String)
    /// `llama-server` could not be started (spawn failed).
    case spawnFailed(binary: String, errno: Int32)
    /// `llama-server` exited before it answered `/health` with 200.
    case engineExited(how: String)
    /// The engine binary does not run at all (`--version` fails): no model is to blame.
    case engineBroken(path: String, detail: String)
    /// `/health` did not answer 200 within the deadline.
    case engineNotHealthy(deadlineMs: Int64)
    /// The supervisor was stopped (the guest is shutting down).
    case stopped
    /// No free loopback port could be bound.
    case noFreePort(errno: Int32)
    /// The data directory could not be created or used.
    case dataDirectory(path: String, detail: String)
    /// A file of the data directory is unreadable or malformed.
    case badFile(path: String, detail: String)
    /// An account key that is not 64 hex digits.
    case badAccountKey
    /// `guest join`: the invite is unusable or the join failed; the text says why and what to do.
    case join(String)

    public var description: String {
        switch self {
        case .engineNotFound(let searched):
            "llama-server not found (looked in: \(searched.joined(separator: ", "))): install it with scripts/engine/install.sh or set llama_server in the config"
        case .noLocalModel(let why): "no local model: \(why)"
        case .modelFileMissing(let path): "model file \(path) does not exist"
        case let .spawnFailed(binary, errno): "could not start \(binary) (errno \(errno))"
        case .engineExited(let how): "llama-server exited before it was ready (\(how)): see its log"
        case let .engineBroken(path, detail):
            "the engine at \(path) does not run: \(detail) (reinstall it: scripts/engine/install.sh, or set llama_server in the config)"
        case .engineNotHealthy(let ms): "llama-server did not become healthy within \(ms) ms"
        case .stopped: "the on-device engine was stopped"
        case .noFreePort(let errno): "no free loopback port (errno \(errno))"
        case let .dataDirectory(path, detail): "data directory \(path): \(detail)"
        case let .badFile(path, detail): "\(path): \(detail)"
        case .badAccountKey: "an account key is 64 hex digits (the public key of the account)"
        case .join(let why): why
        }
    }
}
