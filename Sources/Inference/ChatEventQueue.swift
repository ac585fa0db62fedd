import Synchronization

/// The events a producer thread (curl's loop) hands straight to one reading task, bounded.
///
/// Why not `AsyncThrowingStream.makeStream`: its buffer is unbounded and says nothing of how far
/// the reader is behind, so a fast engine could pile up an answer in memory. Here the producer
/// asks `mustPause()` before each read and pauses the transfer at `highWater` events; the reader
/// resumes it (`onResume`) once it has taken the backlog down to `lowWater`. Events of one read
/// go in under one lock: a suspended reader is woken once per read, and takes whatever is queued
/// without suspending again.
final class ChatEventQueue: Sendable {
    struct Counts: Sendable, Equatable {
        /// Times a suspended reader was resumed by the producer (one thread hand-off each).
        var wakeups = 0
        var pauses = 0
        var resumes = 0
        /// The most events ever queued at once.
        var maxBacklog = 0
    }

    private struct State {
        var events: [ChatEvent] = []
        var head = 0
        var waiter: CheckedContinuation<ChatEvent?, Error>?
        /// Finished by the producer (`[DONE]`, an error) or given up by the reader.
        var ended = false
        var error: Error?
        var abandoned = false
        var paused = false
        var onAbandon: (@Sendable () -> Void)?
        var onResume: (@Sendable () -> Void)?
        var counts = Counts()
        var backlog: Int { events.count - head }
    }

    let highWater: Int, lowWater: Int
    private let state = Mutex(State())

    init(highWater: Int = 256, lowWater: Int = 64) {
        self.highWater = max(1, highWater)
        self.lowWater = min(max(0, lowWater), self.highWater - 1)
    }

    var counts: Counts { state.withLock { $0.counts } }
    var backlog: Int { state.withLock { $0.backlog } }
    var isPaused: Bool { state.withLock { $0.paused } }
    /// A reader is suspended, waiting for the next event.
    var hasWaiter: Bool { state.withLock { $0.waiter != nil } }
    /// The reader gave up before the end: the producer should stop its transfer.
    var isAbandoned: Bool { state.withLock { $0.abandoned } }
    var isEnded: Bool { state.withLock { $0.ended } }

    /// Called once when the reader gives up before the end (cancelled, or the stream dropped).
    func onAbandon(_ hook: @escaping @Sendable () -> Void) {
        let now = state.withLock { s -> Bool in
            s.onAbandon = hook
            return s.abandoned
        }
        if now { hook() }
    }

    /// Called when a paused producer may go on.
    func onResume(_ hook: @escaping @Sendable () -> Void) { state.withLock { $0.onResume = hook } }

    // MARK: producer

    /// Before a read: true (and paused) when the reader is `highWater` events behind.
    func mustPause() -> Bool {
        state.withLock { s in
            guard !s.ended, s.backlog >= highWater else { return false }
            if !s.paused { s.paused = true; s.counts.pauses += 1 }
            return true
        }
    }

    /// Queues the events of one read in order, then ends the stream if `finishing` (the read
    /// held `[DONE]`): a suspended reader is woken once for all of it.
    func push(_ events: [ChatEvent], finishing: Bool = false) {
        let woken = state.withLock { s -> (CheckedContinuation<ChatEvent?, Error>, ChatEvent?)? in
            guard !s.ended, !events.isEmpty || finishing else { return nil }
            var rest = events[...]
            var woken: (CheckedContinuation<ChatEvent?, Error>, ChatEvent?)?
            if let w = s.waiter {
                s.waiter = nil
                s.counts.wakeups += 1
                woken = (w, rest.popFirst())
            }
            s.events.append(contentsOf: rest)
            s.counts.maxBacklog = max(s.counts.maxBacklog, s.backlog)
            if finishing { s.ended = true }
            return woken
        }
        if let (w, e) = woken { w.resume(returning: e) }
    }

    /// Ends the stream after what is queued: cleanly, or with `error`. Only the first end counts.
    func finish(throwing error: Error? = nil) {
        let waiter = state.withLock { s -> CheckedContinuation<ChatEvent?, Error>? in
            guard !s.ended else { return nil }
            s.ended = true
            s.error = error
            defer { s.waiter = nil }
            if s.waiter != nil { s.counts.wakeups += 1 }
            return s.waiter  // only set while nothing is queued
        }
        if let waiter {
            if let error { waiter.resume(throwing: error) } else { waiter.resume(returning: nil) }
        }
    }

    // MARK: reader

    /// The events, as the one reader sees them: cancelling the reading task or dropping the
    /// stream before its end calls `onAbandon`.
    func stream() -> AsyncThrowingStream<ChatEvent, Error> {
        let reader = Reader(self)
        return AsyncThrowingStream(unfolding: { try await reader.queue.next() })
    }

    /// The next event; nil at the end (or once abandoned); the producer's error once.
    func next() async throws -> ChatEvent? {
        if let ready = try take() { return ready }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { c in
                let parked = state.withLock { s -> Bool in
                    guard s.backlog == 0, !s.ended else { return false }
                    s.waiter = c
                    return true
                }
                // Something came between `take` and the lock: no need to wait.
                if !parked { c.resume(with: Result { try take() ?? nil }) }
            }
        } onCancel: {
            abandon()
        }
    }

    /// What is there without waiting: an event, or the end (nil, or the error once, then nil)
    /// as `.some(nil)`; `nil` when the reader must wait.
    private func take() throws -> ChatEvent?? {
        let (out, resume) = state.withLock { s -> (Result<ChatEvent?, Error>?, (@Sendable () -> Void)?) in
            if s.backlog > 0 {
                let e = s.events[s.head]
                s.head += 1
                if s.head == s.events.count { s.events.removeAll(keepingCapacity: true); s.head = 0 }
                var resume: (@Sendable () -> Void)?
                if s.paused, s.backlog <= lowWater {
                    s.paused = false
                    s.counts.resumes += 1
                    resume = s.onResume
                }
                return (.success(e), resume)
            }
            guard s.ended else { return (nil, nil) }
            defer { s.error = nil }
            return (s.error.map { .failure($0) } ?? .success(nil), nil)
        }
        resume?()
        guard let out else { return nil }
        return .some(try out.get())
    }

    /// The reader is gone: nothing more is delivered; a stream not yet ended is abandoned.
    func abandon() {
        let (waiter, hook) = state.withLock { s -> (CheckedContinuation<ChatEvent?, Error>?, (@Sendable () -> Void)?) in
            defer { s.waiter = nil }
            guard !s.ended else { return (s.waiter, nil) }
            s.ended = true
            s.abandoned = true
            s.events.removeAll()
            s.head = 0
            return (s.waiter, s.onAbandon)
        }
        waiter?.resume(returning: nil)
        hook?()
    }

    /// Held only by the stream's closure: when the stream and its iterator are dropped, so is it.
    private final class Reader: Sendable {
        let queue: ChatEventQueue
        init(_ queue: ChatEventQueue) { self.queue = queue }
        deinit { queue.abandon() }
    }
}
