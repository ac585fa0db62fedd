import Basics
import Glibc
import Signing

/// How long an advert or a host stays usable. Both windows come from the routing contract;
/// tests set milliseconds.
public struct FreshnessLimits: Sendable, Equatable {
    /// The own Homebase is usable while its advert is younger than this (contract: 10 min).
    public var ownAdvertMaxAgeMs: Int64
    /// A joined Homebase is usable while heard from within this (contract: 24 h).
    public var joinedMaxSilenceMs: Int64
    /// A receipt time this far or less ahead of now still counts (small wall-clock corrections);
    /// further ahead means this machine's clock moved back, and the age is unknown: stale.
    public var clockStepToleranceMs: Int64

    public init(ownAdvertMaxAgeMs: Int64 = 10 * 60_000, joinedMaxSilenceMs: Int64 = 24 * 3_600_000,
                clockStepToleranceMs: Int64 = 5_000) {
        self.ownAdvertMaxAgeMs = ownAdvertMaxAgeMs
        self.joinedMaxSilenceMs = joinedMaxSilenceMs
        self.clockStepToleranceMs = clockStepToleranceMs
    }
}

extension FreshnessLimits {
    /// The one judgement of the own Homebase's advert, received at `receiptMs` (this clock, already
    /// minus the relay's held time): the router, the model list, embedding routing and the choice
    /// of the own Homebase all ask here, so all of them apply the clock-step tolerance.
    /// `words`: "3 min old (limit 10 min)", for reasons and logs.
    public func ownAdvert(receiptMs: Int64, nowMs: Int64) -> (fresh: Bool, words: String) {
        let f = Freshness(receiptMs: receiptMs, nowMs: nowMs, limitMs: ownAdvertMaxAgeMs, toleranceMs: clockStepToleranceMs)
        return (f.isFresh, f.words(limitMs: ownAdvertMaxAgeMs))
    }

    /// The same for a joined Homebase last heard at `heardMs`: "2 h ago (limit 24 h)".
    public func joined(heardMs: Int64, nowMs: Int64) -> (fresh: Bool, words: String) {
        let f = Freshness(receiptMs: heardMs, nowMs: nowMs, limitMs: joinedMaxSilenceMs, toleranceMs: clockStepToleranceMs)
        return (f.isFresh, f.words(limitMs: joinedMaxSilenceMs, "ago"))
    }
}

/// The verdict of a freshness gate, with the words the router's reason uses.
enum Freshness: Equatable {
    case fresh(ageMs: Int64)
    case stale(ageMs: Int64)
    /// The receipt lies in the future beyond the tolerance: the clock moved back.
    case fromTheFuture(aheadMs: Int64)

    /// `receiptMs` is on the receiver's clock (already minus the relay's held time).
    init(receiptMs: Int64, nowMs: Int64, limitMs: Int64, toleranceMs: Int64) {
        let age = nowMs &- receiptMs
        if age < -toleranceMs {
            self = .fromTheFuture(aheadMs: -age)
        } else if age < limitMs {
            self = .fresh(ageMs: max(age, 0))
        } else {
            self = .stale(ageMs: age)
        }
    }

    var isFresh: Bool { if case .fresh = self { true } else { false } }

    /// "14 min old (limit 10 min)", "3 h ago (limit 24 h)", "received 2 h in the future (…)".
    func words(limitMs: Int64, _ ageWord: String = "old") -> String {
        switch self {
        case .fresh(let age), .stale(let age): "\(formatDuration(age)) \(ageWord) (limit \(formatDuration(limitMs)))"
        case .fromTheFuture(let ahead): "received \(formatDuration(ahead)) in the future (this clock moved back)"
        }
    }
}

/// The receiver's receipt time of a frame: now minus what the relay says it held it, so a
/// frame that waited five hours in a mailbox is five hours old on arrival. Saturates.
public func receiptTime(nowMs: Int64, heldMs: UInt64) -> Int64 {
    nowMs &- Int64(clamping: heldMs)
}

/// "850 ms", "42 s", "14 min", "26 h": whole units, for people.
func formatDuration(_ ms: Int64) -> String {
    switch ms {
    case ..<1_000: "\(ms) ms"
    case ..<120_000: "\(ms / 1_000) s"
    case ..<(120 * 60_000): "\(ms / 60_000) min"
    default: "\(ms / 3_600_000) h"
    }
}

/// The system's wall clock (`CLOCK_REALTIME`).
public struct SystemWallClock: WallClock {
    public init() {}
    public func nowMs() -> Int64 { wallClockMs() }
}

/// A fixed answer to "is this process the Homebase?".
public struct FixedHostRole: HostRole {
    public let homebaseHostKey: PublicKey?
    /// `hostKey` nil: a guest; non-nil: the Homebase with that key.
    public init(hostKey: PublicKey?) { homebaseHostKey = hostKey }
}
