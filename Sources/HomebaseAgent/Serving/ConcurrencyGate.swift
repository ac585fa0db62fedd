import Synchronization

/// At most `limit` requests reach the engine at once; up to `queue` more wait (each at most
/// `maxWait`) for a slot; the rest are turned away at once (`busy`). The engine has a fixed
/// number of slots (llama-server: 4 by default): queueing more there only makes everyone slower.
/// Who gets which slot and place is `SlotBook`'s: the account's own devices before grantees,
/// and a cap per grantee.
final class ConcurrencyGate: Sendable {
    typealias Lane = SlotBook.Lane

    /// What `acquire` came to.
    enum Entry: Sendable, Equatable {
        /// A slot: call `release(lane)` once done.
        case admitted
        /// No slot within the wait (or no place to wait), or cancelled.
        case full
        /// The grantee already has its cap of requests running or waiting.
        case overCap
    }

    private let state: Mutex<State>

    private struct State {
        var book: SlotBook
        var parked: [UInt64: CheckedContinuation<Bool, Never>] = [:]
        /// Tickets that gave up before they parked (their park then refuses at once).
        var abandoned: Set<UInt64> = []
    }

    init(limit: Int, queue: Int, perGrantee: Int = .max) {
        state = Mutex(State(book: SlotBook(limit: limit, queue: queue, perGrantee: perGrantee)))
    }

    var limit: Int { state.withLock { $0.book.limit } }
    var perGrantee: Int { state.withLock { $0.book.perGrantee } }

    /// Requests holding a slot, and requests waiting for one.
    var counts: (active: Int, waiting: Int) { state.withLock { ($0.book.active, $0.book.waiters.count) } }

    func acquire(_ lane: Lane, maxWait: Duration) async -> Entry {
        let id: UInt64
        switch state.withLock({ $0.book.arrive(lane) }) {
        case .admitted: return .admitted
        case .overCap: return .overCap
        case .wait(let ticket): id = ticket
        }
        let timer = Task { [weak self] in
            guard (try? await Task.sleep(for: maxWait)) != nil else { return }
            self?.abandon(id)
        }
        defer {
            timer.cancel()
            state.withLock { _ = $0.abandoned.remove(id) }
        }
        let got = await withTaskCancellationHandler {
            await withCheckedContinuation { c in
                let (now, evicted) = state.withLock { s -> (Bool?, [CheckedContinuation<Bool, Never>]) in
                    if s.book.startIfFree(lane) { return (true, []) }
                    if s.abandoned.contains(id) {
                        s.book.drop(lane)
                        return (false, [])
                    }
                    var out: [UInt64] = []
                    guard s.book.enqueue(id, lane, evicted: &out) else { return (false, []) }
                    s.parked[id] = c
                    return (nil, out.compactMap { s.parked.removeValue(forKey: $0) })
                }
                for e in evicted { e.resume(returning: false) }
                if let now { c.resume(returning: now) }
            }
        } onCancel: { [weak self] in
            self?.abandon(id)
        }
        return got ? .admitted : .full
    }

    /// Frees a slot of `lane`: handed to the waiters `SlotBook` picks.
    func release(_ lane: Lane) {
        let next = state.withLock { s in s.book.release(lane).compactMap { s.parked.removeValue(forKey: $0) } }
        for c in next { c.resume(returning: true) }
    }

    /// A waiter that gave up (timeout, cancel): resumed with false if still parked.
    private func abandon(_ id: UInt64) {
        let c = state.withLock { s -> CheckedContinuation<Bool, Never>? in
            guard s.book.abandon(id) else {
                s.abandoned.insert(id)
                return nil
            }
            return s.parked.removeValue(forKey: id)
        }
        c?.resume(returning: false)
    }
}
