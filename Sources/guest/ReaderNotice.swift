import GuestAgent

extension ReaderClock {
    /// The product's notice: a line on stderr; on a terminal it is erased when text comes.
    static func stderrNotice(_ line: String) {
        if Console.stderrIsTTY {
            Console.err(line.isEmpty ? "\r\u{1b}[K" : Console.dimErr(line))
        } else if !line.isEmpty {
            Console.err(line + "\n")
        }
    }
}
