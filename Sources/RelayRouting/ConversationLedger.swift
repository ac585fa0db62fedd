import Signing
import Synchronization
import Wire

/// What this guest believes each host holds of each conversation: the prefix hash it last
/// synced there. A request then carries that hash and only the messages after it.
///
/// Contract with the host (see `HomebaseProvider`): after answering a request, the host holds
/// exactly the request's messages (its own answer reaches its replica as a message of the next
/// request, as the guest kept it). After an `inline` request it holds the inlined messages; a
/// `sync-delta` from the empty prefix replaces its replica. A belief that is wrong costs one
/// repair (`diverged` / `cache_miss`), never a wrong answer: the host checks the hash.
public protocol ConversationLedger: Sendable {
    /// The prefix hash `host` is believed to hold for `conversation`, or nil (nothing known:
    /// the next request inlines the whole conversation).
    func heldPrefix(host: PublicKey, conversation: Bytes16) -> Bytes32?
    /// `host` now holds `prefix` for `conversation` (a request was answered, a delta applied).
    func record(host: PublicKey, conversation: Bytes16, prefix: Bytes32)
    /// What `host` holds is unknown (a failure after the request went out).
    func forget(host: PublicKey, conversation: Bytes16)
}

/// A ledger in memory, bounded: beyond `capacity` entries the least recently recorded is
/// forgotten (its next request is inlined). Lost on restart, which only costs one inline request.
public final class InMemoryConversationLedger: ConversationLedger {
    private struct Key: Hashable { let host: PublicKey; let conversation: Bytes16 }
    private struct State {
        var prefixes: [Key: (prefix: Bytes32, stamp: UInt64)] = [:]
        var clock: UInt64 = 0
    }

    private let state = Mutex(State())
    /// Conversations remembered across all hosts (4,096 by default: about 250 KB).
    public let capacity: Int

    public init(capacity: Int = 4096) { self.capacity = max(1, capacity) }

    public func heldPrefix(host: PublicKey, conversation: Bytes16) -> Bytes32? {
        state.withLock { $0.prefixes[Key(host: host, conversation: conversation)]?.prefix }
    }

    public func record(host: PublicKey, conversation: Bytes16, prefix: Bytes32) {
        state.withLock { s in
            s.clock += 1
            s.prefixes[Key(host: host, conversation: conversation)] = (prefix, s.clock)
            if s.prefixes.count > capacity, let oldest = s.prefixes.min(by: { $0.value.stamp < $1.value.stamp }) {
                s.prefixes[oldest.key] = nil  // O(n), only past capacity
            }
        }
    }

    public func forget(host: PublicKey, conversation: Bytes16) {
        _ = state.withLock { $0.prefixes.removeValue(forKey: Key(host: host, conversation: conversation)) }
    }

    /// Entries held.
    public var count: Int { state.withLock { $0.prefixes.count } }
}
