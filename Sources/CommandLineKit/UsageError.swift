/// Every failure of the CommandLineKit module: a command line, an environment variable or a
/// config-file line the program cannot use. Each message says what is wrong and how to fix it;
/// the program prints it with the command's usage line and exits 2.
public enum UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A word that looks like a flag (`--x`, `-x`) the command does not take.
    case unknownFlag(String)
    /// A flag that takes a value came without one.
    case needsValue(flag: String, placeholder: String)
    /// A switch was given `=value`.
    case takesNoValue(flag: String)
    /// A flag that may come once came twice.
    case givenTwice(flag: String)
    /// The first word is no command of the program.
    case unknownCommand(String, known: [String])
    /// A setting (flag, environment variable or config-file key) has a value it cannot use.
    /// `source` says where it came from (`flag --mail-ttl`, `environment HOMEBASE_RELAY_MAIL_TTL`,
    /// `relay.conf line 3`); `expected` is the form it takes.
    case badValue(key: String, value: String, source: String, expected: String)
    /// A setting no key of the program's table names.
    case unknownKey(key: String, source: String)
    /// A config-file line that is not `key = value`.
    case badLine(path: String, line: Int, reason: String)
    /// A config file that exists but cannot be read.
    case unreadableFile(path: String, reason: String)
    /// The program's own finding: what is wrong and how to fix it, in one sentence.
    case invalid(String)

    public var description: String {
        switch self {
        case let .unknownFlag(flag): "unknown flag \(flag)"
        case let .needsValue(flag, placeholder): "\(flag) needs a value: \(flag) \(placeholder) or \(flag)=\(placeholder)"
        case let .takesNoValue(flag): "\(flag) takes no value"
        case let .givenTwice(flag): "\(flag) given twice: give it once"
        case let .unknownCommand(name, known): "unknown command \(name); commands: \(known.joined(separator: ", "))"
        case let .badValue(key, value, source, expected): "\(key): \"\(value)\" (from \(source)) is not valid: expected \(expected)"
        case let .unknownKey(key, source): "unknown setting \"\(key)\" (from \(source))"
        case let .badLine(path, line, reason): "\(path):\(line): \(reason)"
        case let .unreadableFile(path, reason): "cannot read \(path): \(reason)"
        case let .invalid(message): message
        }
    }
}
