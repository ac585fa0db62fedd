/// The watchdog ladder of one relayed request (docs/ARCHITECTURE.md, "The routing contract"). Each rung
/// that fires ends the request with `InferenceError.timeout(rung)` and the caller falls back.
/// Every limit is configurable: tests use milliseconds.
public struct WatchdogLimits: Sendable, Equatable {
    /// From sending the request to the host's `accept` (10 s). A sleeping or vanished host is
    /// usually caught at once by the relay's `not-here`; this catches a host that is connected
    /// but not answering.
    public var accept: Duration
    /// From `accept` to the first text of the answer (90 s): room for a cold model to load.
    public var firstOutput: Duration
    /// The longest silence between chunks once text has begun (30 s).
    public var stall: Duration
    /// After this much silence from the host an empty live frame goes to it, so the relay
    /// probes it (Nudge.swift): 2 s, well above a live host's gaps between chunks and under its
    /// 5 s keep-alive; zero: never.
    public var nudge: Duration

    public init(accept: Duration = .seconds(10), firstOutput: Duration = .seconds(90), stall: Duration = .seconds(30),
                nudge: Duration = .seconds(2)) {
        self.accept = accept
        self.firstOutput = firstOutput
        self.stall = stall
        self.nudge = nudge
    }

    func limit(_ rung: Watchdog.Rung) -> Duration {
        switch rung {
        case .accept: accept
        case .firstOutput: firstOutput
        case .stall: stall
        }
    }
}
