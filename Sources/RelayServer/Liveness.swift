import Basics
import Transport
import RelayWire

/// A liveness probe of one device, started by a live frame forwarded to it: if it stays quiet
/// until `probe-after` has passed since it was last heard, the relay pings it; no sign of life
/// within `probe-timeout` of the ping closes it as silent. Keeps the live frames forwarded to
/// it meanwhile, to answer `not-here` for them then.
struct Probe {
    /// The pending ping (not `pinged`), else the deadline of the pong.
    var timer: TimerHandle
    var pinged: Bool
    /// (sender key, frame id), at most `Probe.maxWaiting`; beyond it senders learn only from `peer-gone`.
    var waiting: [(Bytes32, Bytes16)]
    /// Bounds a probe's memory (~48 bytes a frame).
    static let maxWaiting = 256
}

extension Hub {
    /// Anything read from `s` (a frame or a pong): the idle clock restarts and a probe ends.
    func heard(_ s: Session) {
        s.lastHeard = monotonicNanos()
        guard let p = s.probe else { return }
        s.probe = nil
        loop.cancel(p.timer)
        if p.pinged { metrics.probes["answered", default: 0] += 1 }
    }

    /// True when nothing waits for `s`'s socket: a ping sent now would not queue behind data
    /// (a stuck socket is the write timeout's and TCP_USER_TIMEOUT's to judge).
    func socketIdle(_ s: Session) -> Bool { s.queue.isEmpty && s.ws.queuedBytes == 0 }

    /// A live frame is being forwarded to `target`: make sure it shows a sign of life soon.
    /// The frame itself is never held: a live device gets it at once.
    func probeIfQuiet(_ target: Session, sender: Bytes32, frameID: Bytes16, now: UInt64, socketIdle idle: Bool) {
        if var p = target.probe {
            if p.waiting.count < Probe.maxWaiting { p.waiting.append((sender, frameID)); target.probe = p }
            return
        }
        let after = UInt64(config.probeAfter.milliseconds) * 1_000_000
        guard after > 0, idle else { return }
        let quiet = now &- target.lastHeard
        // Quiet long enough: ping now. Else ping when it will have been, unless heard from before.
        let delay = quiet >= after ? Duration.zero : .nanoseconds(Int64(after - quiet))
        let timer = loop.schedule(after: delay) { [weak self, weak target] in
            guard let self, let target else { return }
            self.ping(target)
        }
        target.probe = Probe(timer: timer, pinged: false, waiting: [(sender, frameID)])
    }

    private func ping(_ s: Session) {
        guard var p = s.probe, !p.pinged, !s.isClosing else { return }
        guard socketIdle(s) else { s.probe = nil; return }
        p.pinged = true
        p.timer = loop.schedule(after: config.probeTimeout) { [weak self, weak s] in
            guard let self, let s, s.probe?.pinged == true else { return }
            self.probeFailed(s)
        }
        s.probe = p
        s.ws.ping()
        metrics.probes["sent", default: 0] += 1
    }

    /// No sign of life in time: the device is closed as silent (its correspondents hear
    /// `peer-gone silent`), and the senders of the frames forwarded during the probe hear `not-here`.
    private func probeFailed(_ s: Session) {
        guard let p = s.probe else { return }
        s.probe = nil
        metrics.probes["unanswered", default: 0] += 1
        fail(s, .idleTimeout, "no sign of life within \(config.probeTimeout.milliseconds) ms of a liveness probe")
        for (sender, id) in p.waiting {
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
