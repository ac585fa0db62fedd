import Glibc

/// Everything that can go wrong with the key rings. Messages never contain key material.
public enum CloudKeysError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not `openai` or `anthropic`.
    case unknownProvider(String)
    /// Empty, too long, or with characters no API key has (spaces, control characters).
    case invalidKey(String)
    /// The key is already in that ring.
    case duplicate(CloudProvider)
    /// A 1-based position outside the ring.
    case noSuchPosition(CloudProvider, position: Int, count: Int)
    /// The store may be read or written by group or others: refused, never read.
    case insecureStore(path: String)
    /// A malformed command-line argument.
    case badArgument(String)
    /// A system call failed.
    case io(operation: String, path: String, errno: Int32)

    public var description: String {
        switch self {
        case .unknownProvider(let p): "unknown provider \"\(p.prefix(20))\": use openai or anthropic"
        case .invalidKey(let why): "not an API key: \(why)"
        case .duplicate(let p): "that key is already in the \(p.rawValue) ring"
        case .noSuchPosition(let p, let n, let count):
            count == 0 ? "the \(p.rawValue) ring is empty" : "no key \(n) in the \(p.rawValue) ring (it has 1 to \(count))"
        case .insecureStore(let path): "\(path) is accessible by group or others: refused; run: chmod 600 \(path)"
        case .badArgument(let m): m
        case .io(let op, let path, let code): "\(op) \(path): \(String(cString: strerror(code)))"
        }
    }
}

/// The clouds whose keys are kept. The raw value names the files and the CLI argument.
public enum CloudProvider: String, Sendable, CaseIterable, Equatable {
    case openAI = "openai"
    case anthropic = "anthropic"

    public init(argument: String) throws(CloudKeysError) {
        guard let p = CloudProvider(rawValue: argument.lowercased()) else { throw .unknownProvider(argument) }
        self = p
    }
}
