import RelayWire

/// A token bucket: `burst` frames at once, refilled at `rate` per second.
struct TokenBucket {
    private(set) var tokens: Double
    private var last: UInt64

    init(burst: Double, now: UInt64) { tokens = burst; last = now }

    /// Takes one token if there is one.
    mutating func take(now: UInt64, rate: Double, burst: Double) -> Bool {
        refill(now: now, rate: rate, burst: burst)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    mutating func refill(now: UInt64, rate: Double, burst: Double) {
        if now > last { tokens = min(burst, tokens + Double(now - last) / 1e9 * rate) }
        last = now
    }
}

/// Per device key (or client address), so a reconnect does not refill the bucket. Loop thread only.
///
/// The buckets lie in an array, the key giving a slot: a connection keeps its key's slot
/// (`slot(for:now:)`) and takes from it by index, so a frame hashes no key. Slots stay put
/// until `prune` compacts them, which changes `generation`.
struct RateLimiter<Key: Hashable> {
    let rate: Double
    let burst: Double
    private var slots: [Key: Int] = [:]
    private var buckets: [TokenBucket] = []
    /// Changes whenever slots move: a slot kept from another generation must be looked up again.
    private(set) var generation: UInt64 = 0

    init(rate: Double, burst: Double) { self.rate = rate; self.burst = burst }

    var trackedKeys: Int { slots.count }

    mutating func allow(_ key: Key, now: UInt64) -> Bool { allow(slot: slot(for: key, now: now), now: now) }

    /// Takes a token from a slot of this generation.
    mutating func allow(slot: Int, now: UInt64) -> Bool { buckets[slot].take(now: now, rate: rate, burst: burst) }

    /// `key`'s slot, a full bucket made for a new key.
    mutating func slot(for key: Key, now: UInt64) -> Int {
        if let i = slots[key] { return i }
        buckets.append(TokenBucket(burst: burst, now: now))
        slots[key] = buckets.count - 1
        return buckets.count - 1
    }

    /// Whether `allow` would pass now, without taking a token.
    mutating func wouldAllow(_ key: Key, now: UInt64) -> Bool {
        guard let i = slots[key] else { return true }
        buckets[i].refill(now: now, rate: rate, burst: burst)
        return buckets[i].tokens >= 1
    }

    /// Forgets full buckets (they hold no history worth keeping): memory follows active keys only.
    mutating func prune(now: UInt64) {
        let (rate, burst) = (self.rate, self.burst)
        var keptSlots: [Key: Int] = [:]
        var kept: [TokenBucket] = []
        for (key, i) in slots {
            var b = buckets[i]
            b.refill(now: now, rate: rate, burst: burst)
            guard b.tokens < burst else { continue }
            keptSlots[key] = kept.count
            kept.append(buckets[i])
        }
        slots = keptSlots
        buckets = kept
        generation &+= 1
    }
}
