import RelayWire

/// Live frames sent and not yet resolved, in send order.
///
/// The relay answers `not-here` / `dropped` at once, and answers a connection's frames in
/// order, so a frame without a bounce by the time the pong of a ping sent after it arrives was
/// handed on: each frame waits for the ping with sequence `seq` (several frames share one ping).
struct LiveLedger<Completion> {
    private var waiting: [Bytes16: (seq: UInt64, completion: Completion)] = [:]
    private var order: [(seq: UInt64, id: Bytes16)] = []
    private var head = 0

    var count: Int { waiting.count }
    var isEmpty: Bool { waiting.isEmpty }

    mutating func add(_ id: Bytes16, seq: UInt64, _ completion: Completion) {
        waiting[id] = (seq, completion)
        order.append((seq, id))
    }

    /// A bounce (`not-here`, `dropped`) for `id`; nil when unknown or already resolved.
    mutating func resolve(_ id: Bytes16) -> Completion? {
        waiting.removeValue(forKey: id)?.completion
    }

    /// Every frame waiting for a ping with sequence <= `seq`, oldest first.
    mutating func resolve(through seq: UInt64) -> [Completion] {
        var done: [Completion] = []
        while head < order.count, order[head].seq <= seq {
            if let w = waiting.removeValue(forKey: order[head].id) { done.append(w.completion) }
            head += 1
        }
        if head == order.count { order = []; head = 0 } else if head > 256, head * 2 > order.count {
            order.removeFirst(head); head = 0
        }
        return done
    }

    /// Everything still waiting (the link was lost), oldest first.
    mutating func drain() -> [Completion] {
        let done = order[head...].compactMap { waiting.removeValue(forKey: $0.id)?.completion }
        order = []; head = 0; waiting = [:]
        return done
    }
}
