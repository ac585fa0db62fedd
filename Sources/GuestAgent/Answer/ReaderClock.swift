import Foundation
import Inference

/// What the person at the keyboard waited for, measured where they wait: time to first token from
/// the command's start (the link's set-up shown apart) or, for later questions, from their Enter;
/// the longest silence inside the answer; and a "waiting for …" notice after `noticeAfter`
/// without text, so a slow brain is never a blank terminal (the notice goes to stderr: pipes of
/// stdout stay clean).
public final class ReaderClock: @unchecked Sendable {
    /// When `guest` started: `main` reads it first thing.
    nonisolated(unsafe) public static var processStart = ContinuousClock.now

    private let lock = NSLock()
    private let noticeAfter: Duration
    /// Writes the waiting line; called with "" to take it back when text arrives.
    private let notice: @Sendable (String) -> Void
    // Guarded by lock.
    private var asked: ContinuousClock.Instant
    private var linkSetUp: Duration?
    private var questions = 0
    private var brain: BrainKind?
    private var firstText: ContinuousClock.Instant?
    private var lastText: ContinuousClock.Instant?
    private var longestSilence: Duration = .zero
    private var noticeShown = false
    private var waiter: Task<Void, Never>?

    public init(noticeAfter: Duration = .seconds(1), start: ContinuousClock.Instant = ReaderClock.processStart,
         notice: @escaping @Sendable (String) -> Void) {
        self.noticeAfter = noticeAfter; self.notice = notice; self.asked = start
    }

    /// The relay link is set up (or given up on): the time since the start was its set-up.
    public func linked(now: ContinuousClock.Instant = .now) {
        lock.withLock { if linkSetUp == nil, questions == 0 { linkSetUp = now - asked } }
    }

    /// A question starts: the first counts from the command's start, later ones from now.
    public func ask(now: ContinuousClock.Instant = .now) {
        let wait: Duration = lock.withLock {
            questions += 1
            if questions > 1 { asked = now; linkSetUp = nil }
            firstText = nil; lastText = nil; longestSilence = .zero; noticeShown = false; brain = nil
            waiter?.cancel()
            return max(.zero, noticeAfter - (now - asked))
        }
        let task = Task { [weak self] in
            guard (try? await Task.sleep(for: wait)) != nil else { return }
            self?.waitedTooLong()
        }
        lock.withLock { waiter = task }
    }

    /// The brain now asked (the chosen one, then any fallback): the notice names it.
    public func asking(_ b: BrainKind) { lock.withLock { brain = b } }

    /// Text reached the reader.
    public func text(now: ContinuousClock.Instant = .now) {
        let takeBack: Bool = lock.withLock {
            if let last = lastText { longestSilence = max(longestSilence, now - last) }
            if firstText == nil { firstText = now; waiter?.cancel() }
            lastText = now
            defer { noticeShown = false }
            return noticeShown
        }
        if takeBack { notice("") }
    }

    /// The answer's metadata with the reader's figures in place of the runner's (whose clock
    /// starts at the request, after the link's set-up).
    public func measured(_ m: AnswerMetadata) -> AnswerMetadata {
        lock.withLock {
            waiter?.cancel()
            var out = m
            out.timeToFirstTokenMs = firstText.map { Self.ms($0 - asked) }
            out.linkSetUpMs = firstText == nil ? nil : linkSetUp.map(Self.ms)
            out.longestSilenceMs = lastText == nil ? nil : Self.ms(longestSilence)
            return out
        }
    }

    private func waitedTooLong() {
        let who: String? = lock.withLock {
            guard firstText == nil, !noticeShown else { return nil }
            noticeShown = true
            return Self.name(brain)
        }
        if let who { notice("waiting for \(who)…") }
    }

    static func name(_ b: BrainKind?) -> String { b?.waitingName ?? BrainKind.floor.waitingName }

    static func ms(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    }
}
