import Sealing

/// The reply streams this device has written, so that no stream secret gets a second
/// `ReplyWriter` (two sealers on one secret would reuse nonces). Bounded: the oldest ids are
/// forgotten first; a request that old has long been answered or abandoned.
struct StreamLedger {
    private var seen: Set<MessageID> = []
    private var order: [MessageID] = []
    private var head = 0
    let capacity: Int

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// True the first time `id` is claimed.
    mutating func claim(_ id: MessageID) -> Bool {
        guard seen.insert(id).inserted else { return false }
        order.append(id)
        if order.count - head > capacity {
            seen.remove(order[head])
            head += 1
            if head > capacity { order.removeFirst(head); head = 0 }  // amortised compaction
        }
        return true
    }
}
