/// Every failure of the RelayServer module. Messages name the setting, file or operation and say
/// how to fix it; they never carry payload bytes, tokens or other secrets.
public enum RelayError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A setting has a value that cannot be used. `source` says where it came from.
    case badValue(key: String, value: String, source: String, expected: String)
    /// A flag, environment variable or config-file key this program does not know.
    case unknownKey(key: String, source: String)
    /// A flag that needs a value came last on the command line.
    case missingValue(key: String)
    /// Settings that cannot go together (e.g. a TLS certificate without its key).
    case inconsistent(String)
    /// A file named by a setting could not be read.
    case unreadableFile(key: String, path: String, reason: String)
    /// A line of an allowlist or token file is malformed.
    case badFileLine(path: String, line: Int, reason: String)
    /// The mailbox database failed; the text is the storage error (paths, never contents).
    case storage(String)
    /// The listener or TLS could not be set up.
    case transport(String)
    /// An unknown command on the command line.
    case unknownCommand(String)

    public var description: String {
        switch self {
        case let .badValue(key, value, source, expected):
            return "\(key): \"\(value)\" (from \(source)) is not valid: expected \(expected)"
        case let .unknownKey(key, source):
            return "unknown setting \"\(key)\" (from \(source)); run `homebase-relay serve --help` for the list"
        case let .missingValue(key):
            return "--\(key) needs a value: --\(key) VALUE or --\(key)=VALUE"
        case let .inconsistent(why):
            return why
        case let .unreadableFile(key, path, reason):
            return "\(key): cannot read \(path): \(reason)"
        case let .badFileLine(path, line, reason):
            return "\(path):\(line): \(reason)"
        case let .storage(detail):
            return "mailbox: \(detail)"
        case let .transport(detail):
            return "listener: \(detail)"
        case let .unknownCommand(c):
            return "unknown command \"\(c)\"; commands: serve, version, help (run `homebase-relay --help`)"
        }
    }

    /// The exit status of the command line for this error: 2 for usage and configuration errors.
    public var exitCode: Int32 {
        switch self {
        case .badValue, .unknownKey, .missingValue, .inconsistent, .unknownCommand, .badFileLine, .unreadableFile: 2
        case .storage, .transport: 1
        }
    }
}
