// Reconnect delays: exponential from `initial`, capped at `maximum`, with jitter so that a
// relay restart does not bring every device back in the same millisecond.

/// Jittered exponential backoff. Pure: the random source is passed in, so tests are exact.
public struct Backoff: Equatable, Sendable {
    /// The first delay (before jitter).
    public var initial: Duration
    /// No delay exceeds this; permanent refusals wait this long.
    public var maximum: Duration
    /// 0...1: a delay `d` becomes uniform in `d * (1 - jitter) ... d`. 0 disables jitter.
    public var jitter: Double

    public init(initial: Duration = .milliseconds(500), maximum: Duration = .seconds(60), jitter: Double = 0.3) {
        self.initial = initial; self.maximum = maximum; self.jitter = min(max(jitter, 0), 1)
    }

    /// The delay before retry number `attempt` (0 = the first retry), `unit` uniform in 0..<1.
    public func delay(attempt: Int, unit: Double) -> Duration {
        let base = Swift.min(maximum, initial * Double(1 << Swift.min(attempt, 30)))
        return base * (1 - jitter * unit)
    }

    /// The wait after a permanent refusal: the maximum, jittered downward.
    public func refusalDelay(unit: Double) -> Duration { maximum * (1 - jitter * unit) }

    /// A delay the relay asked for (`restarting`): never shorter, jittered upward so that the
    /// relay's devices do not all return together.
    public func requested(_ delay: Duration, unit: Double) -> Duration { delay * (1 + jitter * unit) }
}

/// Uniform in 0..<1 from the system generator (jitter needs no cryptographic quality).
func unitRandom() -> Double { Double.random(in: 0..<1) }
