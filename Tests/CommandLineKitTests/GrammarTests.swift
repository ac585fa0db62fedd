import CommandLineKit
import Testing

/// The one duration grammar and the one size grammar, as every program reads them.
@Suite struct GrammarTests {
    @Test func durations() {
        for bare in [DurationGrammar.Bare.seconds, .refused] {
            #expect(DurationGrammar.parse("250ms", bare: bare) == .milliseconds(250))
            #expect(DurationGrammar.parse("30s", bare: bare) == .seconds(30))
            #expect(DurationGrammar.parse("10m", bare: bare) == .seconds(600))
            #expect(DurationGrammar.parse("2h", bare: bare) == .seconds(7200))
            #expect(DurationGrammar.parse("7d", bare: bare) == .seconds(7 * 86_400))
            for bad in ["", "s", "soon", "-1s", "1.5s", "5 s", "5x"] { #expect(DurationGrammar.parse(bad, bare: bare) == nil, "\(bad)") }
        }
        #expect(DurationGrammar.parse("7", bare: .seconds) == .seconds(7))
        #expect(DurationGrammar.parse("7", bare: .refused) == nil)
    }

    @Test func durationTextIsTheLargestEvenUnit() {
        #expect(DurationGrammar.text(.seconds(90)) == "90s")
        #expect(DurationGrammar.text(.seconds(7200)) == "2h")
        #expect(DurationGrammar.text(.seconds(3 * 86_400)) == "3d")
        #expect(DurationGrammar.text(.milliseconds(250)) == "250ms")
        #expect(DurationGrammar.text(.zero) == "0ms")
        for d in [Duration.seconds(90), .milliseconds(1500), .seconds(600)] {
            #expect(DurationGrammar.parse(DurationGrammar.text(d), bare: .refused) == d)
        }
    }

    @Test func sizes() {
        #expect(SizeGrammar.parse("4096") == 4096)
        #expect(SizeGrammar.parse("64KiB") == 64 << 10)
        #expect(SizeGrammar.parse("4MiB") == 4 << 20)
        #expect(SizeGrammar.parse("1GiB") == 1 << 30)
        #expect(SizeGrammar.parse("500k") == 500_000)
        #expect(SizeGrammar.parse("10m") == 10_000_000)
        #expect(SizeGrammar.parse("1.5g") == 1_500_000_000)
        for bad in ["", "KiB", "4 KiB", "-1", "1.5KiB", "64kib", "lots", "99999999999GiB"] {
            #expect(SizeGrammar.parse(bad) == nil, "\(bad)")
        }
        #expect(SizeGrammar.text(64 << 20) == "64MiB")
        #expect(SizeGrammar.text(1000) == "1000")
    }

    @Test func countsAndSwitches() {
        #expect(CountGrammar.whole("42") == 42)
        for bad in ["", "-1", "+1", "1 ", "x"] { #expect(CountGrammar.whole(bad) == nil) }
        #expect(SwitchGrammar.parse("on") == true && SwitchGrammar.parse("off") == false && SwitchGrammar.parse("yes") == nil)
    }
}
