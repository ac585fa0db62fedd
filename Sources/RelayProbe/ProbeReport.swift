/// What a successful probe measured, each from the probe's own monotonic clock.
public struct ProbeReport: Equatable, Sendable {
    /// The relay's origin as dialled.
    public var origin: String
    /// First device: TCP connect, TLS, WebSocket upgrade, challenge, `auth-ok`.
    public var auth: Duration
    /// A live frame A -> B and B's live answer back to A.
    public var liveRoundTrip: Duration
    /// A mail frame A -> relay until `stored` came back.
    public var mailStored: Duration
    /// The same mail frame A -> relay -> B (stored first, then delivered).
    public var mailDelivered: Duration

    /// One line: `ok wss://host:443 auth 3.10 ms, live round trip 0.41 ms, ...`.
    public var line: String {
        "ok \(origin) auth \(ms(auth)), live round trip \(ms(liveRoundTrip)), "
            + "mail stored \(ms(mailStored)), mail delivered \(ms(mailDelivered))"
    }
}

/// Milliseconds with two decimals, without Foundation's formatter.
func ms(_ d: Duration) -> String {
    let us = max(0, d.components.seconds * 1_000_000 + d.components.attoseconds / 1_000_000_000_000)
    let hundredths = (us + 5) / 10
    let frac = hundredths % 100
    return "\(hundredths / 100).\(frac < 10 ? "0" : "")\(frac) ms"
}
