import Basics
import Testing

/// The count grammar of `--tokens 200k/day` and sizes: k, m, g are decimal.
@Suite struct CountTextTests {
    @Test func suffixesAndPlainNumbers() {
        #expect(parseCount("500") == 500)
        #expect(parseCount("200k") == 200_000)
        #expect(parseCount("200K") == 200_000)
        #expect(parseCount("1.5m") == 1_500_000)
        #expect(parseCount("2g") == 2_000_000_000)
        #expect(parseCount("0") == 0)
    }

    @Test func refusesWhatIsNotACount() {
        for bad in ["", "k", "-5", "1.5", "1..5k", "5x", "1e3", "12 k", "９"] { #expect(parseCount(bad) == nil, "\(bad)") }
    }
}
