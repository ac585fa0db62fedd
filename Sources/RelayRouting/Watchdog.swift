import Routing
import Synchronization

/// One request's watchdog: a single deadline that moves as the ladder advances. `watch` sleeps
/// until the deadline, re-reads it (a reply may have moved it later) and fires at most once; a
/// move to an EARLIER deadline (a long `accept` rung replaced by a short `first output`) wakes
/// the sleep. One sleeping task per request instead of one timer per chunk: streams of many
/// small chunks only move a value under a lock.
final class Watchdog: Sendable {
    /// The rungs: the one that fired is the failure `BrainFailure.watchdog`.
    typealias Rung = BrainFailure.Rung

    private struct State {
        var rung: Rung
        var deadline: ContinuousClock.Instant
        var fired: Rung?
        /// The sleep in progress and its end, so an earlier deadline can cut it short.
        var sleeper: Task<Void, Never>?
        var sleepingUntil: ContinuousClock.Instant?
    }

    private let limits: WatchdogLimits
    private let state: Mutex<State>

    /// Starts on the `accept` rung, counted from `start` (when the request was handed to the link).
    init(limits: WatchdogLimits, start: ContinuousClock.Instant) {
        self.limits = limits
        state = Mutex(State(rung: .accept, deadline: start + limits.accept, fired: nil))
    }

    /// Moves to `rung`, its limit counted from now. Does nothing once fired.
    func arm(_ rung: Rung) {
        let now = ContinuousClock.now
        state.withLock { s in
            guard s.fired == nil else { return }
            s.rung = rung
            s.deadline = now + limits.limit(rung)
            if let until = s.sleepingUntil, s.deadline < until { s.sleeper?.cancel() }
        }
    }

    /// The rung that fired, if one did.
    var fired: Rung? { state.withLock { $0.fired } }

    /// Sleeps until the deadline passes unmoved, then records the rung and calls `onFire`
    /// (once). Returns early when the calling task is cancelled.
    func watch(onFire: () -> Void) async {
        while !Task.isCancelled {
            // Made under the lock, so `arm` sees every sleep it may need to cut short.
            let sleeper = state.withLock { s -> Task<Void, Never>? in
                guard s.fired == nil else { return nil }
                let until = s.deadline
                s.sleepingUntil = until
                s.sleeper = Task { try? await Task.sleep(until: until, clock: .continuous) }
                return s.sleeper
            }
            guard let sleeper else { return }
            await withTaskCancellationHandler { await sleeper.value } onCancel: { sleeper.cancel() }
            guard !Task.isCancelled else { return }
            let fire = state.withLock { s -> Bool in
                guard s.fired == nil, ContinuousClock.now >= s.deadline else { return false }
                s.fired = s.rung
                return true
            }
            if fire {
                onFire()
                return
            }
        }
    }
}
