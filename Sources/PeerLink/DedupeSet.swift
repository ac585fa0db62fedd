import RelayWire

/// Frame ids already delivered to the consumer, bounded, least recently seen evicted first.
///
/// The relay may deliver a mail frame again (an ack lost in a restart), so receivers drop
/// duplicate ids (spec-wire 2.3). An entry remembers whether the consumer acked the frame:
/// a duplicate of an acked mail frame is acked again (the relay lost our ack), a duplicate of
/// one the consumer still holds is ignored. Keys include the sender so that one sender cannot
/// shadow another's frames by reusing an id. Eviction only costs a possible second delivery.
struct DedupeSet {
    struct Key: Hashable { let sender: Bytes32; let frameID: Bytes16 }
    enum Seen: Equatable { case new, pending, acked }

    let capacity: Int
    private var entries: [Key: (stamp: UInt64, acked: Bool)] = [:]
    /// Insertion/touch order; stale stamps (touched again later) are skipped on eviction.
    private var order: [(key: Key, stamp: UInt64)] = []
    private var head = 0
    private var clock: UInt64 = 0

    init(capacity: Int) { self.capacity = max(1, capacity) }

    var count: Int { entries.count }

    /// What we know of `key`, refreshing its place in the LRU order.
    mutating func lookup(_ key: Key) -> Seen {
        guard let e = entries[key] else { return .new }
        touch(key, acked: e.acked)
        return e.acked ? .acked : .pending
    }

    /// Records a frame handed to the consumer (`acked` true when no ack is owed, e.g. live).
    mutating func insert(_ key: Key, acked: Bool) {
        touch(key, acked: acked)
        while entries.count > capacity { evictOldest() }
    }

    /// The consumer acked it. Returns false if the key is unknown (evicted or never seen).
    @discardableResult
    mutating func markAcked(_ key: Key) -> Bool {
        guard let e = entries[key] else { return false }
        entries[key] = (e.stamp, true)
        return true
    }

    private mutating func touch(_ key: Key, acked: Bool) {
        clock += 1
        entries[key] = (clock, acked)
        order.append((key, clock))
        if head > 64, head * 2 > order.count { order.removeFirst(head); head = 0 }
        if order.count - head > 4 * capacity + 64 { compact() }
    }

    private mutating func evictOldest() {
        while head < order.count {
            let (key, stamp) = order[head]
            head += 1
            if entries[key]?.stamp == stamp { entries[key] = nil; return }
        }
    }

    /// Drops stale order records (keys touched many times without eviction).
    private mutating func compact() {
        order = order[head...].filter { entries[$0.key]?.stamp == $0.stamp }
        head = 0
    }
}
