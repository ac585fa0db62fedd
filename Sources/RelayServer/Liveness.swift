import Transport
import Wire

/// A liveness probe in flight: the relay pinged a device it had not heard from for
/// `probe-after` because a live frame came for it; the live frames forwarded to it since, to
/// answer `not-here` if no pong comes within `probe-timeout`.
struct Probe {
    let timer: TimerHandle
    /// (sender key, frame id), at most `Probe.maxWaiting`; beyond it senders learn only from `peer-gone`.
    var waiting: [(Bytes32, Bytes16)] = []
    /// Bounds a probe's memory (~48 bytes a frame).
    static let maxWaiting = 256
}

extension Hub {
    /// Anything read from `s` (a frame or a pong): the idle clock restarts and a probe is answered.
    func heard(_ s: Session) {
        s.lastHeard = monotonicNs()
        guard let p = s.probe else { return }
        s.probe = nil
        loop.cancel(p.timer)
        metrics.probes["answered", default: 0] += 1
    }

    /// Called for each live frame forwarded to `target`: probes it if it has been quiet for
    /// `probe-after`. The frame is not held: a live device gets it at once; a dead one is found
    /// within `probe-timeout`. Not while output waits for the socket (the ping would queue
    /// behind it; the write timeout and TCP_USER_TIMEOUT judge a stuck socket).
    func probeIfQuiet(_ target: Session, sender: Bytes32, frameID: Bytes16, now: UInt64) {
        if var p = target.probe {
            if p.waiting.count < Probe.maxWaiting { p.waiting.append((sender, frameID)); target.probe = p }
            return
        }
        let after = config.probeAfter.milliseconds
        guard after > 0, now &- target.lastHeard > UInt64(after) * 1_000_000,
              target.queue.isEmpty, target.ws.queuedBytes == 0 else { return }
        let timer = loop.schedule(after: config.probeTimeout) { [weak self, weak target] in
            guard let self, let target, target.probe != nil else { return }
            self.probeFailed(target)
        }
        target.probe = Probe(timer: timer, waiting: [(sender, frameID)])
        target.ws.ping()
        metrics.probes["sent", default: 0] += 1
    }

    /// No pong in time: the device is closed as silent (its correspondents hear `peer-gone
    /// silent`), and the senders of the frames forwarded during the probe hear `not-here`.
    private func probeFailed(_ s: Session) {
        guard let p = s.probe else { return }
        s.probe = nil
        metrics.probes["unanswered", default: 0] += 1
        fail(s, .idleTimeout, "no pong within \(config.probeTimeout.milliseconds) ms of a liveness probe")
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
        let now = monotonicNs()
        let delay = due > now ? Duration.nanoseconds(Int64(due - now)) : .zero
        s.idleTimer = loop.schedule(after: delay) { [weak self, weak s] in
            guard let self, let s, !s.isClosing else { return }
            if monotonicNs() &- s.lastHeard >= idle {
                self.fail(s, .idleTimeout, "nothing received within the idle timeout")
            } else {
                self.armIdle(s)
            }
        }
    }
}
