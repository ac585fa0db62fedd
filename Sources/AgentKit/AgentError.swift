/// Every failure of the AgentKit module.
///
/// Tool failures (`unknownTimeZone`, `pathNotAllowed`, ...) are shown to the model as the tool's
/// result so it can correct itself; they never end a run. Messages name tools, paths and zones,
/// never a prompt or a model's answer.
public enum AgentError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A tool's arguments were not the JSON object its schema asks for.
    case invalidArguments(tool: String, detail: String)
    /// The model called a tool that is not offered.
    case unknownTool(String)
    /// A tool call in the model's text could not be parsed (the reason, never the text).
    case malformedToolCall(String)
    /// `current_time` was given a zone that is not an IANA identifier.
    case unknownTimeZone(String)
    /// A path resolved (symlinks and `..` followed) to a place outside the allowed directories.
    case pathNotAllowed(String)
    /// No file tool may run: the user allowed no directory.
    case noAllowedDirectories
    /// An allowed directory does not exist or is not a directory.
    case badAllowedDirectory(String)
    /// The path does not exist.
    case notFound(String)
    /// `read_file` was given a directory, a device or a socket.
    case notARegularFile(String)
    /// `list_dir` was given something that is not a directory.
    case notADirectory(String)
    /// The file holds NUL bytes: it is not text.
    case binaryFile(String)
    /// A system call failed on a path.
    case io(path: String, detail: String)
    /// The model's stream failed (the runtime's error, as text).
    case model(String)
    /// The model's stream ended without its final metrics: the answer is incomplete.
    case interrupted
    /// The run was cancelled.
    case cancelled
    /// The model is not loaded (call `load` first).
    case notLoaded
    /// The runtime cannot run here, with the human reason.
    case unavailable(String)
    /// The model catalog is not valid.
    case catalogInvalid(String)

    public var description: String {
        switch self {
        case let .invalidArguments(tool, detail): "invalid arguments for \(tool): \(detail)"
        case let .unknownTool(name): "unknown tool \(name)"
        case let .malformedToolCall(reason): "the tool call could not be parsed: \(reason)"
        case let .unknownTimeZone(zone):
            "unknown time zone \(zone): use an IANA identifier such as Europe/Istanbul or UTC"
        case let .pathNotAllowed(path): "\(path) is outside the allowed directories"
        case .noAllowedDirectories: "no directory is allowed: the user must allow one first"
        case let .badAllowedDirectory(path): "allowed directory \(path) does not exist or is not a directory"
        case let .notFound(path): "\(path) does not exist"
        case let .notARegularFile(path): "\(path) is not a regular file"
        case let .notADirectory(path): "\(path) is not a directory"
        case let .binaryFile(path): "\(path) is a binary file"
        case let .io(path, detail): "\(path): \(detail)"
        case let .model(detail): "the model failed: \(detail)"
        case .interrupted: "the model's stream ended before its final metrics"
        case .cancelled: "cancelled"
        case .notLoaded: "no model is loaded"
        case let .unavailable(reason): "runtime unavailable: \(reason)"
        case let .catalogInvalid(detail): "model catalog is invalid: \(detail)"
        }
    }
}
