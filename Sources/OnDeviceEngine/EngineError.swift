/// Every failure of the on-device engine's supervision, with a message a person can act on.
/// Callers catch it as this type: the on-device provider turns it into `InferenceError.unreachable`
/// with its text, the load check matches `.exited`.
///
/// Messages name binaries, files and ports, never a prompt or an answer.
public enum EngineError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No `llama-server` binary in the config, on PATH, or in the engine directory.
    case notFound(searched: [String])
    /// A child could not be started (spawn failed).
    case spawnFailed(binary: String, errno: Int32)
    /// `llama-server` exited before it answered `/health` with 200.
    case exited(how: String)
    /// `/health` did not answer 200 within the deadline.
    case notHealthy(deadlineMs: Int64)
    /// The supervisor was stopped (the guest is shutting down).
    case stopped
    /// No free loopback port could be bound.
    case noFreePort(errno: Int32)

    public var description: String {
        switch self {
        case .notFound(let searched):
            "llama-server not found (looked in: \(searched.joined(separator: ", "))): install it with scripts/engine/install.sh or set llama_server in the config"
        case let .spawnFailed(binary, errno): "could not start \(binary) (errno \(errno))"
        case .exited(let how): "llama-server exited before it was ready (\(how)): see its log"
        case .notHealthy(let ms): "llama-server did not become healthy within \(ms) ms"
        case .stopped: "the on-device engine was stopped"
        case .noFreePort(let errno): "no free loopback port (errno \(errno))"
        }
    }
}
