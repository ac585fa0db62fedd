import Basics
import RelayWire

/// The devices one connection exchanged live frames with lately, for `peer-gone`: key -> the
/// monotonic ns of the last frame between them (either way). Bounded: at `capacity` the entry
/// heard from longest ago is forgotten (a scan of at most `capacity` entries, only when a new
/// key arrives at a full table). About 48 bytes per entry; 64 entries by default.
///
/// The key noted last is kept aside with its time (`hot`): a steady exchange with one peer, the
/// common case, stamps it without hashing the key (in `last` its time may lag until another key
/// is noted).
struct Correspondents {
    private(set) var last: [Bytes32: UInt64] = [:]
    private var hot: Bytes32?
    private var hotTime: UInt64 = 0

    mutating func note(_ key: Bytes32, now: UInt64, capacity: Int) {
        guard capacity > 0 else { return }
        if let h = hot, h == key { hotTime = now; return }
        if let h = hot, let i = last.index(forKey: h) { last.values[i] = hotTime }
        hot = key; hotTime = now
        if last.updateValue(now, forKey: key) == nil, last.count > capacity,
           let oldest = last.min(by: { $0.value < $1.value })?.key {
            last[oldest] = nil
        }
    }

    /// Keys exchanged with within `window` ns before `now`.
    func recent(now: UInt64, window: UInt64) -> [Bytes32] {
        last.compactMap { entry in
            let t = entry.key == hot ? max(entry.value, hotTime) : entry.value
            return now &- t <= window ? entry.key : nil
        }
    }
}

extension Hub {
    /// A live frame went from `sender` to `target`: each remembers the other.
    /// Each side's own key array is passed (not one cut from the frame): the same storage every
    /// time, so the hot-key check is a pointer comparison.
    func noteExchange(_ sender: Session, _ senderKey: Bytes32, _ target: Session, now: UInt64) {
        let cap = config.peerGoneMemory
        guard cap > 0, let targetKey = target.key else { return }
        target.correspondents.note(senderKey, now: now, capacity: cap)
        sender.correspondents.note(targetKey, now: now, capacity: cap)
    }

    /// `s` stopped being the route for its key: every device that exchanged a live frame with
    /// it within the window hears `peer-gone` at once, so an open exchange ends now instead of
    /// at its timeout. Behind the frames already queued for that device (a slow reader's), so
    /// a `done` the leaver sent just before it left is read before the news that it left.
    func announceGone(_ s: Session, key: Bytes32, reason: PeerGoneReason) {
        let now = monotonicNanos()
        let window = UInt64(config.peerGoneWindow.milliseconds) * 1_000_000
        for k in s.correspondents.recent(now: now, window: window) {
            guard let other = byKey[k] else {
                // On another node (or nowhere): the node holding it tells it (ClusterRouting.swift).
                if let c = cluster { try? c.nats.publish(ClusterSubjects.device(k), ClusterMessage.gone(peer: key, reason: reason).encode()) }
                continue
            }
            guard other !== s, !other.isClosing else { continue }
            deliver(ForwardCodec.control(.peerGone(.init(peer: key, reason: reason))), to: other, force: true)
            metrics.peerGone[reason.description, default: 0] += 1
        }
        s.correspondents = Correspondents()
    }

    /// The `peer-gone` reason for a connection the relay closes with `code`.
    static func goneReason(_ code: RelayErrorCode) -> PeerGoneReason {
        switch code {
        case .replaced: .replaced
        case .idleTimeout: .silent
        default: .closed
        }
    }
}
