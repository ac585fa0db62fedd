import Synchronization

/// Text a library command writes through its `output` closure, kept to be printed once the
/// exit status says where (stdout, or stderr for a bad command line).
final class Collected: Sendable {
    private let text = Mutex("")

    func append(_ s: String) { text.withLock { $0 += s } }
    var value: String { text.withLock { $0 } }
}
