import Dispatch
import Sealing
import Synchronization

/// A live request's replay check in the `ReplayStore`, run on its own thread while the request
/// goes on to its consumer, which may start the engine meanwhile: the SQLite transaction (40-180
/// µs here) then leaves the way to the engine request. The guarantee is kept where it matters:
/// the request's `ReplyWriter` sends nothing (`accept`, a chunk, `error`, `done`) before the
/// check has accepted it, so a replayed request is never answered, and its engine request is
/// ended unanswered (`ReplyWriter.replayChecked()` false).
///
/// One serial queue for every check: they commit one at a time in the order the link read the
/// frames, as they did on the inbound task (two copies of one request: the later is refused).
public final class ReplayCommit: Sendable {
    enum Verdict: Sendable, Equatable { case accepted, replayed, storeFailed }

    private static let queue = DispatchQueue(label: "courier.replay-commit", qos: .userInitiated)
    private let state = Mutex<(verdict: Verdict?, waiters: [CheckedContinuation<Verdict, Never>])>((nil, []))

    /// Starts `check` on the commit thread; `settled` (that thread) counts its verdict.
    init(_ check: StoreCheck, settled: @escaping @Sendable (Verdict) -> Void) {
        Self.queue.async { [self] in
            let verdict = Self.run(check)
            settled(verdict)
            settle(verdict)
        }
    }

    /// Runs `check` here and now: its verdict (on the commit thread, or inline).
    static func run(_ check: StoreCheck) -> Verdict {
        do {
            try check.run()
            return .accepted
        } catch SealingError.replayed {
            return .replayed
        } catch {
            return .storeFailed
        }
    }

    /// Already settled (a test's, or a check run inline).
    init(settled verdict: Verdict) { state.withLock { $0.verdict = verdict } }

    private func settle(_ verdict: Verdict) {
        let waiters = state.withLock { s in
            s.verdict = verdict
            defer { s.waiters = [] }
            return s.waiters
        }
        for w in waiters { w.resume(returning: verdict) }
    }

    /// The verdict so far (nil: the check still runs).
    var verdict: Verdict? { state.withLock { $0.verdict } }

    /// The verdict, once the check has run.
    var settled: Verdict {
        get async {
            await withCheckedContinuation { c in
                let now = state.withLock { s -> Verdict? in
                    if s.verdict == nil { s.waiters.append(c) }
                    return s.verdict
                }
                if let now { c.resume(returning: now) }
            }
        }
    }
}
