import Glibc

/// Everything that can go wrong in this module. Messages never contain key material.
public enum SigningError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A seed or secret key had the wrong number of bytes.
    case invalidSecretLength(expected: Int, actual: Int)
    /// A key file may be read or written by group or others.
    case keyFileInsecure(path: String)
    /// A key file does not hold exactly the expected number of bytes.
    case keyFileWrongLength(path: String, expected: Int, actual: Int)
    /// A key file path names something other than a regular file.
    case keyFileNotRegular(path: String)
    /// A system call failed.
    case io(operation: String, path: String, errno: Int32)

    public var description: String {
        switch self {
        case let .invalidSecretLength(expected, actual):
            return "secret key must be \(expected) bytes, got \(actual)"
        case let .keyFileInsecure(path):
            return "key file \(path) is accessible by group or others; run: chmod 600 \(path)"
        case let .keyFileWrongLength(path, expected, actual):
            return "key file \(path) must hold exactly \(expected) bytes, it holds \(actual)"
        case let .keyFileNotRegular(path):
            return "key file \(path) is not a regular file"
        case let .io(operation, path, code):
            return "\(operation) \(path): \(String(cString: strerror(code)))"
        }
    }
}
