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
struct RateLimiter<Key: Hashable> {
    let rate: Double
    let burst: Double
    private var buckets: [Key: TokenBucket] = [:]

    init(rate: Double, burst: Double) { self.rate = rate; self.burst = burst }

    var trackedKeys: Int { buckets.count }

    mutating func allow(_ key: Key, now: UInt64) -> Bool {
        // One lookup, the bucket taken from in place (every frame of every device passes here).
        let (rate, burst) = (self.rate, self.burst)
        return buckets[key, default: TokenBucket(burst: burst, now: now)].take(now: now, rate: rate, burst: burst)
    }

    /// Whether `allow` would pass now, without taking a token.
    mutating func wouldAllow(_ key: Key, now: UInt64) -> Bool {
        guard buckets[key] != nil else { return true }
        buckets[key]!.refill(now: now, rate: rate, burst: burst)
        return buckets[key]!.tokens >= 1
    }

    /// Forgets full buckets (they hold no history worth keeping): memory follows active keys only.
    mutating func prune(now: UInt64) {
        let (rate, burst) = (self.rate, self.burst)
        buckets = buckets.filter { _, b in
            var b = b
            b.refill(now: now, rate: rate, burst: burst)
            return b.tokens < burst
        }
    }
}
