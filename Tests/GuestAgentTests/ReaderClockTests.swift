import Foundation
@testable import GuestAgent
import Inference
import Testing

/// The reader's clock behind `guest chat`'s dim line and waiting notice (#18 item 7).
@Suite struct ReaderClockTests {
    let meta = AnswerMetadata(brain: .ownHomebase, routeReason: "own advert fresh")

    /// A clock whose link came up 80 ms after `start` and whose first question went 10 ms later.
    func linkedAndAsked(_ start: ContinuousClock.Instant) -> ReaderClock {
        let clock = ReaderClock(noticeAfter: .seconds(60), start: start) { _ in }
        clock.linked(now: start + .milliseconds(80))
        clock.ask(now: start + .milliseconds(90))
        return clock
    }

    @Test func firstQuestionCountsFromTheCommandWithTheLinkApartAndTheLongestSilence() {
        let start = ContinuousClock.now
        let clock = linkedAndAsked(start)
        clock.text(now: start + .milliseconds(200))
        clock.text(now: start + .milliseconds(300))
        clock.text(now: start + .milliseconds(2500))
        let m = clock.measured(meta)
        #expect(m.timeToFirstTokenMs == 200)
        #expect(m.linkSetUpMs == 80)
        #expect(m.longestSilenceMs == 2200)
        #expect(m.summaryLine == "homebase · first token 200 ms (link 80 ms) · longest silence 2200 ms")
    }

    @Test func laterQuestionsCountFromTheirEnterAndShowNoLinkOrShortSilence() {
        let start = ContinuousClock.now
        let clock = linkedAndAsked(start)
        clock.text(now: start + .milliseconds(100))
        _ = clock.measured(meta)
        let second = start + .seconds(20)
        clock.ask(now: second)
        clock.text(now: second + .milliseconds(40))
        clock.text(now: second + .milliseconds(500))
        let m = clock.measured(meta)
        #expect(m.timeToFirstTokenMs == 40)
        #expect(m.linkSetUpMs == nil)
        #expect(m.summaryLine == "homebase · first token 40 ms")
    }

    @Test func silenceBeforeTheFirstTextSaysWhoIsAwaitedAndTakesItBack() async throws {
        let lines = Collected()
        let clock = ReaderClock(noticeAfter: .milliseconds(20), start: .now) { lines.add($0) }
        clock.ask()
        clock.asking(.ownHomebase)
        for _ in 0..<500 where lines.all.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        #expect(lines.all == ["waiting for the Homebase…"])
        clock.text()
        #expect(lines.all == ["waiting for the Homebase…", ""])
    }

    @Test func noAnswerTextMeansNoFirstTokenFigure() {
        let clock = ReaderClock(noticeAfter: .seconds(60), start: .now) { _ in }
        clock.linked()
        clock.ask()
        let m = clock.measured(meta)
        #expect(m.timeToFirstTokenMs == nil && m.linkSetUpMs == nil && m.longestSilenceMs == nil)
    }
}

/// Lines a test's notice received, in order.
final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func add(_ s: String) { lock.withLock { lines.append(s) } }
    var all: [String] { lock.withLock { lines } }
}
