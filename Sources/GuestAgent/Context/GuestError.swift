/// Every failure of the GuestAgent module, with a message a person can act on.
///
/// Messages name files, binaries and ports, never a prompt, an answer or a key. The engine's
/// own failures are OnDeviceEngine's `EngineError`, caught as that type where they are met.
public enum GuestError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No GGUF model to serve (none selected, none configured), with why.
    case noLocalModel(String)
    /// The model file named by the selection or the config does not exist.
    case modelFileMissing(path: String)
    /// The engine binary does not run at all (`--version` fails): no model is to blame.
    case engineBroken(path: String, detail: String)
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
        case .noLocalModel(let why): "no local model: \(why)"
        case .modelFileMissing(let path): "model file \(path) does not exist"
        case let .engineBroken(path, detail):
            "the engine at \(path) does not run: \(detail) (reinstall it: scripts/engine/install.sh, or set llama_server in the config)"
        case let .dataDirectory(path, detail): "data directory \(path): \(detail)"
        case let .badFile(path, detail): "\(path): \(detail)"
        case .badAccountKey: "an account key is 64 hex digits (the public key of the account)"
        case .join(let why): why
        }
    }
}
