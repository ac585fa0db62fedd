// The one rule for names and peer text on output (issue 15, hole 11).
import Testing
import Wire

@Test func escapeWritesUnsafeScalarsAsEscapesAndLeavesTheRest() {
    #expect(Printable.escape("ana\nroot\u{1b}[2J") == "ana\\u{a}root\\u{1b}[2J")
    #expect(Printable.escape("\u{0}\u{7f}\u{9b}\u{2028}\u{202e}\u{2066}") == "\\u{0}\\u{7f}\\u{9b}\\u{2028}\\u{202e}\\u{2066}")
    for plain in ["Ana's laptop", "Grüße ☕", "👨‍👩‍👧", "", "tabs\\tare text"] { #expect(Printable.escape(plain) == plain) }
    #expect(Printable.firstUnsafe("ok\rno") == "\r")
    #expect(Printable.firstUnsafe("👩‍💻") == nil)
}
