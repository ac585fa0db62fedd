/// Refuses an envelope whose message id was seen before, in bounded memory.
///
/// Rules (a message is refused with `SealingError.replayed` when any holds):
/// - its timestamp is older than `now - window` (too old to be remembered);
/// - its timestamp is later than `now + maxFutureSkew` (it could not be forgotten in time);
/// - its timestamp is at or below the watermark (see below);
/// - its id is remembered.
///
/// Ids are remembered until their timestamp leaves the window. When more than `capacity` ids
/// are remembered, the oldest is forgotten and the watermark rises to its timestamp, so that a
/// replay of a forgotten id is still refused (at the price of refusing late honest messages
/// under a flood). Not persisted: a restarted device starts empty.
public struct ReplayGuard: Sendable {
    /// How far in the past (ms) a timestamp may lie. Must cover the relay's mailbox TTL, since
    /// a message may wait there that long before delivery.
    public let window: UInt64
    /// How far in the future (ms) a timestamp may lie: the tolerated clock difference.
    public let maxFutureSkew: UInt64
    /// The most ids remembered (about 100 bytes each).
    public let capacity: Int

    private var seen: [MessageID: UInt64] = [:]
    private var byAge = TimestampHeap()
    private var watermark: UInt64?

    /// Defaults: 7 days of window, 5 minutes of skew, 65,536 ids (a few MiB at most).
    public init(window: UInt64 = 7 * 24 * 3_600_000, maxFutureSkew: UInt64 = 300_000, capacity: Int = 65_536) {
        precondition(capacity > 0, "a replay guard must remember at least one id")
        self.window = window
        self.maxFutureSkew = maxFutureSkew
        self.capacity = capacity
    }

    /// The number of ids currently remembered.
    public var count: Int { seen.count }

    /// Accepts and remembers `id`, or throws `SealingError.replayed`. All times in ms since epoch.
    public mutating func accept(_ id: MessageID, timestamp: UInt64, now: UInt64) throws {
        let oldest = now >= window ? now - window : 0
        forget(olderThan: oldest)
        guard timestamp >= oldest,
              timestamp <= now &+ maxFutureSkew || now > UInt64.max - maxFutureSkew,
              watermark.map({ timestamp > $0 }) ?? true,
              seen[id] == nil else {
            throw SealingError.replayed
        }
        seen[id] = timestamp
        byAge.push(timestamp, id)
        if seen.count > capacity, let evicted = byAge.popOldest() {
            seen[evicted.id] = nil
            watermark = max(watermark ?? 0, evicted.timestamp)
        }
    }

    private mutating func forget(olderThan oldest: UInt64) {
        while let top = byAge.oldest, top.timestamp < oldest {
            _ = byAge.popOldest()
            seen[top.id] = nil
        }
    }
}

/// A binary min-heap of (timestamp, id): the replay guard forgets the oldest first.
struct TimestampHeap: Sendable {
    private var items: [(timestamp: UInt64, id: MessageID)] = []

    var oldest: (timestamp: UInt64, id: MessageID)? { items.first }

    mutating func push(_ timestamp: UInt64, _ id: MessageID) {
        items.append((timestamp, id))
        var i = items.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard items[i].timestamp < items[parent].timestamp else { break }
            items.swapAt(i, parent)
            i = parent
        }
    }

    mutating func popOldest() -> (timestamp: UInt64, id: MessageID)? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let top = items.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var smallest = i
            if l < items.count && items[l].timestamp < items[smallest].timestamp { smallest = l }
            if r < items.count && items[r].timestamp < items[smallest].timestamp { smallest = r }
            if smallest == i { return top }
            items.swapAt(i, smallest)
            i = smallest
        }
    }
}
