import Signing

/// What an opener checks a message id against (`Envelope.open`, `Introduction.open`): a
/// `ReplayGuard` (one sender's, or everyone's), or the Courier's per-sender state.
public protocol ReplayChecker {
    /// Accepts and remembers `id` from `sender`, or throws (`SealingError.replayed` for a replay).
    mutating func accept(_ id: MessageID, timestamp: UInt64, from sender: PublicKey, now: UInt64) throws
}

/// Refuses an envelope whose message id was seen before, in bounded memory.
///
/// Rules (a message is refused with `SealingError.replayed` when any holds):
/// - its timestamp is older than `now - window` (too old to be remembered);
/// - its timestamp is later than `now + maxFutureSkew` (it could not be forgotten in time);
/// - its timestamp is at or below the watermark (see below);
/// - its id is remembered;
/// - `capacity` ids are remembered and the oldest of them (or the new one) is later than now.
///
/// Ids are remembered until their timestamp leaves the window. When more than `capacity` ids
/// are remembered, the oldest is forgotten and the watermark rises to its timestamp, so that a
/// replay of a forgotten id is still refused (at the price of refusing late honest messages
/// under a flood). The watermark never passes `now`: when every id held is stamped ahead of
/// now, nothing can be forgotten safely and the new message is refused instead, so a flood of
/// future-stamped ids silences only the guard it fills (keep one guard per sender). Not
/// persisted: the Courier's `ReplayStore` keeps the same rules on disk.
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
    /// The latest timestamp ever accepted.
    public private(set) var newest: UInt64?

    /// Defaults: 7 days of window, 5 minutes of skew, 65,536 ids (a few MiB at most).
    public init(window: UInt64 = 7 * 24 * 3_600_000, maxFutureSkew: UInt64 = 300_000, capacity: Int = 65_536) {
        precondition(capacity > 0, "a replay guard must remember at least one id")
        self.window = window
        self.maxFutureSkew = maxFutureSkew
        self.capacity = capacity
    }

    /// The number of ids currently remembered.
    public var count: Int { seen.count }

    /// Refuses from now on every timestamp at or below `floor` (a sender forgotten at `floor`).
    public mutating func raiseWatermark(to floor: UInt64) { watermark = max(watermark ?? floor, floor) }

    /// The lowest timestamp this guard refuses for sure, when any (rule 3).
    public var floor: UInt64? { watermark }

    /// True when `timestamp` passes rules 1 to 3 at `now` (inside the window and skew, above the watermark).
    public func admits(_ timestamp: UInt64, now: UInt64) -> Bool {
        let oldest = now >= window ? now - window : 0
        return timestamp >= oldest
            && (timestamp <= now &+ maxFutureSkew || now > UInt64.max - maxFutureSkew)
            && watermark.map({ timestamp > $0 }) ?? true
    }

    /// Accepts and remembers `id`, or throws `SealingError.replayed`. All times in ms since epoch.
    public mutating func accept(_ id: MessageID, timestamp: UInt64, now: UInt64) throws {
        let oldest = now >= window ? now - window : 0
        forget(olderThan: oldest)
        guard admits(timestamp, now: now), seen[id] == nil else { throw SealingError.replayed }
        // Full of ids stamped ahead of now: forgetting one would lift the watermark past now.
        if seen.count >= capacity, min(byAge.oldest?.timestamp ?? timestamp, timestamp) > now {
            throw SealingError.replayed
        }
        seen[id] = timestamp
        byAge.push(timestamp, id)
        newest = max(newest ?? timestamp, timestamp)
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

extension ReplayGuard: ReplayChecker {
    /// One guard for whoever sends: the sender is not looked at.
    public mutating func accept(_ id: MessageID, timestamp: UInt64, from sender: PublicKey, now: UInt64) throws {
        try accept(id, timestamp: timestamp, now: now)
    }
}
