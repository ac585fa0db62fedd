import Signing

/// Introductions opened per sender per minute: opening one costs a key agreement and a
/// signature check, and anyone holding the host's keys (an invite, a pairing code) can send
/// them. A fixed one-minute window per sender, for at most `tracked` senders (beyond that, the
/// windows that ended are forgotten first, then the oldest).
struct IntroductionLimiter {
    let perMinute: Int
    let tracked: Int
    private var windows: [PublicKey: (startMs: UInt64, count: Int)] = [:]

    init(perMinute: Int, tracked: Int = 4_096) {
        self.perMinute = perMinute
        self.tracked = max(1, tracked)
    }

    /// Whether one more introduction from `sender` may be opened now (and counts it if so).
    mutating func admit(_ sender: PublicKey, nowMs: UInt64) -> Bool {
        guard perMinute > 0 else { return true }  // 0: unlimited
        var w = windows[sender] ?? (nowMs, 0)
        if nowMs >= w.startMs &+ 60_000 || nowMs < w.startMs { w = (nowMs, 0) }
        guard w.count < perMinute else { return false }
        w.count += 1
        if windows[sender] == nil && windows.count >= tracked { makeRoom(nowMs: nowMs) }
        windows[sender] = w
        return true
    }

    private mutating func makeRoom(nowMs: UInt64) {
        windows = windows.filter { nowMs < $0.value.startMs &+ 60_000 }
        if windows.count >= tracked, let oldest = windows.min(by: { $0.value.startMs < $1.value.startMs }) {
            windows[oldest.key] = nil
        }
    }
}
