import Synchronization

/// At most `limit` requests reach the engine at once; up to `queue` more wait (each at most
/// `maxWait`) for a slot; the rest are turned away at once (`busy`). The engine has a fixed
/// number of slots (llama-server: 4 by default): queueing more there only makes everyone slower.
final class ConcurrencyGate: Sendable {
    let limit: Int
    let queue: Int
    private let state = Mutex(State())

    private struct State {
        var active = 0
        var waiters: [(id: UInt64, resume: CheckedContinuation<Bool, Never>)] = []
        /// Waiters that gave up before they parked (their park then refuses at once).
        var abandoned: Set<UInt64> = []
        var nextID: UInt64 = 0
    }

    init(limit: Int, queue: Int) {
        self.limit = max(1, limit)
        self.queue = max(0, queue)
    }

    /// Requests holding a slot, and requests waiting for one.
    var counts: (active: Int, waiting: Int) { state.withLock { ($0.active, $0.waiters.count) } }

    /// True with a slot (call `release()` once done); false when full, timed out or cancelled.
    func acquire(maxWait: Duration) async -> Bool {
        let id = state.withLock { s -> UInt64? in
            if s.active < limit { s.active += 1; return nil }
            s.nextID += 1
            return s.nextID
        }
        guard let id else { return true }
        let timer = Task { [weak self] in
            guard (try? await Task.sleep(for: maxWait)) != nil else { return }
            self?.abandon(id)
        }
        defer {
            timer.cancel()
            state.withLock { _ = $0.abandoned.remove(id) }
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { c in
                let now = state.withLock { s -> Bool? in
                    if s.active < limit { s.active += 1; return true }
                    if s.waiters.count >= queue || s.abandoned.contains(id) { return false }
                    s.waiters.append((id, c))
                    return nil
                }
                if let now { c.resume(returning: now) }
            }
        } onCancel: { [weak self] in
            self?.abandon(id)
        }
    }

    /// Frees a slot: handed to the oldest waiter, if any.
    func release() {
        let next = state.withLock { s -> CheckedContinuation<Bool, Never>? in
            if !s.waiters.isEmpty { return s.waiters.removeFirst().resume }
            s.active = max(0, s.active - 1)
            return nil
        }
        next?.resume(returning: true)
    }

    /// A waiter that gave up (timeout, cancel): resumed with false if still parked.
    private func abandon(_ id: UInt64) {
        let c = state.withLock { s -> CheckedContinuation<Bool, Never>? in
            guard let i = s.waiters.firstIndex(where: { $0.id == id }) else {
                s.abandoned.insert(id)
                return nil
            }
            return s.waiters.remove(at: i).resume
        }
        c?.resume(returning: false)
    }
}
