import Basics
import Glibc

/// Where a program writes: unbuffered stdout and stderr (tokens must show as they come), or a
/// capture in a unit test.
public struct Output: Sendable {
    public let out: @Sendable (String) -> Void
    public let err: @Sendable (String) -> Void

    public init(out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void) {
        self.out = out; self.err = err
    }

    public static let standard = Output(out: { write(1, $0) }, err: { write(2, $0) })

    /// Every byte, retried on EINTR; a closed stream drops the rest.
    public static func write(_ fd: Int32, _ s: String) {
        _ = Array(s.utf8).withUnsafeBytes { writeFully(fd, $0) }
    }
}
