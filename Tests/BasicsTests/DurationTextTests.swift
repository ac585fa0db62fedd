import Basics
import Testing

/// The one duration grammar, and what each program accepted before it was shared: `guest` and
/// `homebase` read a bare number (and `Int64`'s `+`) as seconds, the relay refuses both.
@Suite struct DurationTextTests {
    @Test func everyUnitReads() {
        for mode in [BareNumber.refused, .seconds] {
            #expect(parseDuration("250ms", bareNumber: mode) == .milliseconds(250))
            #expect(parseDuration("30s", bareNumber: mode) == .seconds(30))
            #expect(parseDuration("10m", bareNumber: mode) == .seconds(600))
            #expect(parseDuration("2h", bareNumber: mode) == .seconds(7200))
            #expect(parseDuration("7d", bareNumber: mode) == .seconds(7 * 86_400))
            #expect(parseDuration("0s", bareNumber: mode) == .zero)
        }
    }

    @Test func aBareNumberIsSecondsOnlyWhereItWas() {
        #expect(parseDuration("7", bareNumber: .seconds) == .seconds(7))
        #expect(parseDuration("+5", bareNumber: .seconds) == .seconds(5))
        #expect(parseDuration("+5s", bareNumber: .seconds) == .seconds(5))
        #expect(parseDuration("10", bareNumber: .refused) == nil)
        #expect(parseDuration("+5s", bareNumber: .refused) == nil)
    }

    @Test func anythingElseIsRefused() {
        for mode in [BareNumber.refused, .seconds] {
            for text in ["", "s", "ms", "soon", "-1s", "1.5s", "5 s", "5sec", "1e3s", "5S", "9223372036854775807d", "99999999999999999999s"] {
                #expect(parseDuration(text, bareNumber: mode) == nil, "\(text) read as a duration")
            }
        }
        #expect(parseDuration("-1", bareNumber: .seconds) == nil)
    }
}
