import RelayWire

/// Mail frames waiting for `stored` or `mailbox-full`, in the order they were given.
///
/// Each keeps its encoded `send` frame, so a resend after a reconnect is byte-identical (same
/// frame id: the relay and the recipient dedupe by it). Bounded by `capacity` frames; each is at
/// most one relay frame (~64 KiB), so the outbox holds at most capacity x 64 KiB.
struct MailOutbox<Completion> {
    let capacity: Int
    private var entries: [Bytes16: (frame: [UInt8], completion: Completion)] = [:]
    private var order: [Bytes16] = []

    init(capacity: Int) { self.capacity = capacity }

    var count: Int { entries.count }
    var isFull: Bool { entries.count >= capacity }

    /// Adds a frame; false when full (the caller reports `outboxFull`).
    mutating func add(_ id: Bytes16, frame: [UInt8], _ completion: Completion) -> Bool {
        guard !isFull, entries[id] == nil else { return false }
        entries[id] = (frame, completion)
        order.append(id)
        return true
    }

    /// The relay answered for `id` (or the caller gave up): it leaves the outbox.
    mutating func remove(_ id: Bytes16) -> Completion? {
        guard let e = entries.removeValue(forKey: id) else { return nil }
        order.removeAll { $0 == id }
        return e.completion
    }

    /// Every waiting frame's bytes, oldest first: what to (re)send after `auth-ok`.
    var frames: [[UInt8]] { order.compactMap { entries[$0]?.frame } }

    /// Empties the outbox (the link stopped), oldest first.
    mutating func drain() -> [Completion] {
        let done = order.compactMap { entries[$0]?.completion }
        entries = [:]; order = []
        return done
    }
}
