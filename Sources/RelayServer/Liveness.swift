import Basics
import Transport
import RelayWire

/// A liveness probe of one device, started by a live frame forwarded to it: if it stays quiet
/// until `probe-after` has passed since it was last heard, the relay pings it; no sign of life
/// within `probe-timeout` of the ping closes it as silent. Keeps the live frames forwarded to
/// it meanwhile, to answer `not-here` for them then.
struct Probe {
    var pinged = false
    /// Bounds a probe's memory (~16 bytes a frame): (sender key, frame id) are kept in
    /// `Session.probeWaiting`, at most this many; beyond it senders learn only from `peer-gone`.
    static let maxWaiting = 256
    /// Bytes of one waiting frame in `Session.probeWaiting`: sender key 32, frame id 16.
    static let record = 48

    /// The waiting frames' (sender, frame id), decoded when a probe fails.
    static func waiting(_ records: [UInt8]) -> [(Bytes32, Bytes16)] {
        stride(from: 0, to: records.count - record + 1, by: record).map { at in
            (Bytes32(unchecked: Array(records[at..<(at + 32)])), Bytes16(unchecked: Array(records[(at + 32)..<(at + record)])))
        }
    }
}

extension Hub {
    /// Anything read from `s` (a frame or a pong): the idle clock restarts and a probe ends.
    /// A ping not yet due keeps its timer: when it fires it finds no probe, or a later one it
    /// re-arms for (a device in a steady exchange costs no timer per frame).
    func heard(_ s: Session) {
        s.lastHeard = monotonicNanos()
        guard let p = s.probe else { return }
        s.probe = nil
        // A few frames' worth of room is kept (no allocation per probe); a burst's is released.
        if s.probeWaiting.capacity <= 4 * Probe.record { s.probeWaiting.removeAll(keepingCapacity: true) } else { s.probeWaiting = [] }
        if p.pinged {
            if let t = s.probeTimer { loop.cancel(t); s.probeTimer = nil }
            metrics.probes["answered", default: 0] += 1
        }
    }

    /// True when nothing waits for `s`'s socket: a ping sent now would not queue behind data
    /// (a stuck socket is the write timeout's and TCP_USER_TIMEOUT's to judge).
    func socketIdle(_ s: Session) -> Bool { s.queue.isEmpty && s.ws.queuedBytes == 0 }

    /// A live frame is being forwarded to `target`: make sure it shows a sign of life soon.
    /// The frame itself is never held: a live device gets it at once.
    func probeIfQuiet(_ target: Session, sender: Bytes32, send v: SendView, now: UInt64, socketIdle idle: Bool) {
        if target.probe != nil {
            if target.probeWaiting.count < Probe.maxWaiting * Probe.record { noteWaiting(target, sender: sender, send: v) }
            return
        }
        guard config.probeAfter > .zero, idle else { return }
        target.probe = Probe()
        noteWaiting(target, sender: sender, send: v)
        if target.probeTimer == nil { armProbe(target, now: now) }
    }

    private func noteWaiting(_ target: Session, sender: Bytes32, send v: SendView) {
        target.probeWaiting.append(contentsOf: sender.bytes)
        target.probeWaiting.append(contentsOf: v.message[SendView.frameIDRange])
    }

    /// Fires when `s` will have been quiet for probe-after (at once if it already has).
    private func armProbe(_ s: Session, now: UInt64) {
        let after = UInt64(config.probeAfter.milliseconds) * 1_000_000
        let quiet = now &- s.lastHeard
        let delay = quiet >= after ? Duration.zero : .nanoseconds(Int64(after - quiet))
        s.probeTimer = loop.schedule(after: delay) { [weak self, weak s] in
            guard let self, let s else { return }
            s.probeTimer = nil
            guard let p = s.probe, !p.pinged else { return }
            let now = monotonicNanos()
            // Heard from since this timer was set: wait for the quiet the current probe needs.
            if now &- s.lastHeard < after { self.armProbe(s, now: now) } else { self.ping(s) }
        }
    }

    private func ping(_ s: Session) {
        guard s.probe != nil, !s.isClosing else { return }
        guard socketIdle(s) else { s.probe = nil; s.probeWaiting = []; return }
        s.probe?.pinged = true
        s.probeTimer = loop.schedule(after: config.probeTimeout) { [weak self, weak s] in
            guard let self, let s, s.probe?.pinged == true else { return }
            s.probeTimer = nil
            self.probeFailed(s)
        }
        s.ws.ping()
        metrics.probes["sent", default: 0] += 1
    }

    /// No sign of life in time: the device is closed as silent (its correspondents hear
    /// `peer-gone silent`), and the senders of the frames forwarded during the probe hear `not-here`.
    private func probeFailed(_ s: Session) {
        guard s.probe != nil else { return }
        let waiting = Probe.waiting(s.probeWaiting)
        s.probe = nil; s.probeWaiting = []
        metrics.probes["unanswered", default: 0] += 1
        fail(s, .idleTimeout, "no sign of life within \(config.probeTimeout.milliseconds) ms of a liveness probe")
        for (sender, id) in waiting {
            guard let other = byKey[sender], !other.isClosing else { continue }
            metrics.notHere += 1
            other.control(.notHere(frameID: id))
        }
    }

    /// Arms the exact idle deadline of `s`: it fires at `lastHeard + idle-timeout` and re-arms
    /// itself when something was heard since (one timer per connection, nothing per frame).
    func armIdle(_ s: Session) {
        let idle = UInt64(config.idleTimeout.milliseconds) * 1_000_000
        let due = s.lastHeard &+ idle
        let now = monotonicNanos()
        let delay = due > now ? Duration.nanoseconds(Int64(due - now)) : .zero
        s.idleTimer = loop.schedule(after: delay) { [weak self, weak s] in
            guard let self, let s, !s.isClosing else { return }
            if monotonicNanos() &- s.lastHeard >= idle {
                self.fail(s, .idleTimeout, "nothing received within the idle timeout")
            } else {
                self.armIdle(s)
            }
        }
    }
}
