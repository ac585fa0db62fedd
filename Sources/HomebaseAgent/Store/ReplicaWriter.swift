import Synchronization
import Wire

/// Writes the own account's conversation replicas to the store, the newest of a conversation
/// winning: each write is numbered when its messages are held in memory, and a write that a
/// newer one of the same conversation has overtaken is skipped, so a late background write never
/// lands over the answer that `done` acknowledged. Writes run one at a time.
final class ReplicaWriter: Sendable {
    /// One numbered write; `write()` performs it (or skips it when overtaken).
    struct Pending: Sendable {
        fileprivate let key: [UInt8]
        fileprivate let messages: [AppMessage.ChatMessage]
        fileprivate let number: UInt64
    }

    private let store: HostStore
    private let capacity: Int
    private let nowMs: @Sendable () -> Int64
    private let log: @Sendable (String) -> Void
    /// The newest number issued per conversation not yet written (a written one is removed).
    private let issued = Mutex<(next: UInt64, newest: [[UInt8]: UInt64])>((1, [:]))
    /// Held across each write: writes never interleave.
    private let writing = Mutex<Void>(())

    init(store: HostStore, capacity: Int, nowMs: @escaping @Sendable () -> Int64, log: @escaping @Sendable (String) -> Void) {
        self.store = store
        self.capacity = capacity
        self.nowMs = nowMs
        self.log = log
    }

    /// Numbers a write of `messages` as `key`'s newest (call it when they are held in memory).
    func issue(_ key: [UInt8], _ messages: [AppMessage.ChatMessage]) -> Pending {
        let n = issued.withLock { s in
            defer { s.next += 1 }
            s.newest[key] = s.next
            return s.next
        }
        return Pending(key: key, messages: messages, number: n)
    }

    /// Writes `p` unless a newer write of its conversation was issued since. Blocks while
    /// another write runs. True when the store now holds `p` or something newer.
    @discardableResult
    func write(_ p: Pending) -> Bool {
        writing.withLock { _ in
            guard issued.withLock({ $0.newest[p.key] == p.number }) else { return true }  // overtaken
            do {
                try store.saveReplica(p.key, p.messages, nowMs: nowMs(), capacity: capacity)
            } catch {
                log("replica: \(error)")
                return false
            }
            issued.withLock { s in if s.newest[p.key] == p.number { s.newest[p.key] = nil } }
            return true
        }
    }
}

/// A write started off the request path, once; `finish()` waits for it (starting it if it was not).
final class BackgroundWrite: Sendable {
    private let task = Mutex<Task<Void, Never>?>(nil)
    private let body: @Sendable () -> Void

    init(_ body: @escaping @Sendable () -> Void) { self.body = body }

    func start() {
        task.withLock { t in
            if t == nil { t = Task(priority: .utility) { [body] in body() } }
        }
    }

    func finish() async {
        start()
        await task.withLock { $0 }?.value
    }
}
