// Reconnect delays. A relay outage is usually short (a restart, a blip): the first seconds are
// retried fast, then the delay grows with the time the link has been down, so the time lost
// after the relay is back stays a small fraction (`growth`) of the outage. Jitter keeps a
// relay's devices from all returning in the same millisecond.

/// Jittered reconnect schedule. Pure: the time down and the random source are passed in, so
/// tests are exact.
public struct Backoff: Equatable, Sendable {
    /// The fast delay of the first seconds (before jitter); never less after that.
    public var initial: Duration
    /// No delay exceeds this; permanent refusals wait this long.
    public var maximum: Duration
    /// 0...1: a delay `d` becomes uniform in `d * (1 - jitter) ... d`. 0 disables jitter.
    public var jitter: Double
    /// Once the link has been down for `t`, retries come every `t * growth` (0.05: at most 1/20
    /// of the outage is lost after the relay is back). The fast phase lasts `initial / growth`.
    public var growth: Double
    /// `restarting`: the upward jitter added to the relay's announced delay is at most this.
    public var restartSpread: Duration

    public init(initial: Duration = .milliseconds(250), maximum: Duration = .seconds(60), jitter: Double = 0.3,
                growth: Double = 0.05, restartSpread: Duration = .milliseconds(500)) {
        self.initial = initial; self.maximum = maximum; self.jitter = min(max(jitter, 0), 1)
        self.growth = max(growth, 0); self.restartSpread = restartSpread
    }

    /// The delay before the next retry of a link that has been down for `down`, `unit`
    /// uniform in 0..<1.
    public func delay(down: Duration, unit: Double) -> Duration {
        let grown = down * growth
        let base = Swift.min(maximum, Swift.max(initial, grown))
        return base * (1 - jitter * unit)
    }

    /// The wait after a permanent refusal: the maximum, jittered downward.
    public func refusalDelay(unit: Double) -> Duration { maximum * (1 - jitter * unit) }

    /// A delay the relay asked for (`restarting`): never shorter, and later by at most
    /// `restartSpread` (or `jitter` of it, if less) so that the relay's devices spread out
    /// without coming back long after the relay.
    public func requested(_ delay: Duration, unit: Double) -> Duration {
        delay + Swift.min(delay * jitter, restartSpread) * unit
    }
}

/// Uniform in 0..<1 from the system generator (jitter needs no cryptographic quality).
func unitRandom() -> Double { Double.random(in: 0..<1) }
