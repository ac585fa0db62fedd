import Signing

/// A Homebase the guest stopped asking for a while (LiteLLM's cooldowns): it timed out at the
/// accept rung or went silent (the relay found it dead), so the next requests go on-device at
/// once instead of each paying the wait again. Ends when the host is heard from (an advert
/// received after `sinceMs`), when a request to it succeeds, or at `untilMs`, when the next
/// request is the probe.
public struct Cooldown: Sendable, Equatable, Codable {
    /// The host's signing key, hex.
    public var host: String
    /// Wall-clock ms (this device's clock).
    public var sinceMs: Int64
    public var untilMs: Int64
    /// The failure that started it, as logged ("timed out: accept", ...). Never prompt text.
    public var because: String

    public init(host: String, sinceMs: Int64, untilMs: Int64, because: String) {
        self.host = host; self.sinceMs = sinceMs; self.untilMs = untilMs; self.because = because
    }
}

/// Where the router reads cooldowns (the guest's file; tests: a fixed list).
public protocol CooldownSource: Sendable {
    /// The cooldown of `host` in force at `nowMs`, nil when there is none or it expired.
    func cooldown(of host: PublicKey, nowMs: Int64) -> Cooldown?
}

extension Router {
    /// The router's one cooldown hook: why `host` is not asked now, or nil. `heardMs`: when
    /// anything was last received from it (its advert); heard after the cooldown began ends it.
    func cooledDown(_ host: PublicKey, heardMs: Int64?, now: Int64) -> String? {
        guard let c = cooldowns?.cooldown(of: host, nowMs: now) else { return nil }
        if let heardMs, heardMs > c.sinceMs { return nil }
        return "cooled down since \(Cooldown.clock(c.sinceMs)) UTC, because \(c.because); "
            + "asked again once heard from (its next advert) or after \(Cooldown.clock(c.untilMs)) UTC"
    }
}

extension Cooldown {
    /// HH:MM:SS (UTC) of a wall-clock ms.
    static func clock(_ ms: Int64) -> String {
        let s = (ms / 1000) % 86_400
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(two(s / 3600)):\(two(s / 60 % 60)):\(two(s % 60))"
    }
}
