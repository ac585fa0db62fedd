@testable import GuestAgent
import Testing

/// tokens/s on the dim line: from the first text to the end, and none for a burst too short to
/// time (the demo printed "382968 tok/s" for an on-device answer that came in one burst).
@Suite struct AnswerRateTests {
    static func measured(spanMicroseconds: Int, tokens: Int) -> AnswerMetadata {
        var m = AnswerMetadata(brain: .onDevice, routeReason: "test")
        let start = ContinuousClock.now
        let first = start + .milliseconds(40)
        m.measure(start: start, firstToken: first, streamed: (first, first + .microseconds(spanMicroseconds)), chunks: 3,
                  completionTokens: tokens, promptTokens: 5, finishReason: "stop")
        return m
    }

    @Test func aTimedSpanGivesTokensPerSecond() {
        let m = Self.measured(spanMicroseconds: 100_000, tokens: 64)
        #expect(m.tokensPerSecond.map { Int($0.rounded()) } == 640)
        #expect(m.summaryLine.contains("640 tok/s"), "\(m.summaryLine)")
    }

    @Test func aBurstTooShortToTimeGivesNoRate() {
        let m = Self.measured(spanMicroseconds: 167, tokens: 64)  // 383,000 tok/s before
        #expect(m.tokensPerSecond == nil)
        #expect(!m.summaryLine.contains("tok/s"), "\(m.summaryLine)")
        #expect(m.timeToFirstTokenMs.map { Int($0.rounded()) } == 40)
    }
}
