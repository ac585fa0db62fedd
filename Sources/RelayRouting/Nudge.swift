import Courier
import PeerLink
import Signing
import Synchronization

/// While a request waits on a silent host, an empty live frame to it every `WatchdogLimits.nudge`
/// of silence. Hosts skip it (a payload of no known kind); the relay, seeing a frame for a device
/// quiet past its `probe-after`, pings that device, and one that does not answer (frozen after
/// `accept`, partitioned mid-answer) is closed and announced with `peer-gone`, which ends the
/// request at once instead of at its rung (90 s before the first output, 30 s after).
final class Nudge: Sendable {
    private let last = Mutex(ContinuousClock.now)

    /// Anything arrived from the host.
    func heard() { last.withLock { $0 = .now } }

    /// Runs until cancelled; `every` zero never nudges.
    func run(courier: Courier, host: PublicKey, every: Duration) async {
        guard every > .zero else { return }
        while !Task.isCancelled {
            let due = last.withLock { $0 } + every
            if ContinuousClock.now >= due {
                courier.link.sendLive(to: host, payload: [], then: nil)
                heard()  // the next nudge after another quiet interval
            } else {
                try? await Task.sleep(until: due, clock: .continuous)
            }
        }
    }
}
