import Glibc

/// Pairing codes and invites are secrets: an argument is readable by every user of the machine
/// (`/proc/PID/cmdline`) and stays in shell history. The commands that take one read it from
/// standard input instead (`guest pair -`, `guest join -`, `homebase pair -`; a prompt on a
/// terminal when it is omitted) and still accept the argument, with `argvWarning`.
public enum SecretLine {
    /// The word that means "read it from standard input".
    public static let stdinWord = "-"

    /// True when standard input is a terminal (then a prompt is shown).
    public static var stdinIsTerminal: Bool { isatty(0) == 1 }

    /// One line from standard input (at most `limit` bytes), without its line ending and
    /// surrounding spaces; nil when the input ends with nothing on it. On a terminal, `prompt`
    /// goes to stderr first; the text is echoed (a code is read off another screen).
    public static func read(prompt: String?, limit: Int = 4096) -> String? {
        if stdinIsTerminal, let prompt { writeErr(prompt) }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while line.count <= limit {
            let n = Glibc.read(0, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 || byte == 0x0A { break }
            line.append(byte)
        }
        var text = Substring(decoding: line, as: UTF8.self)
        while let c = text.first, c == " " || c == "\t" { text.removeFirst() }
        while let c = text.last, c == " " || c == "\t" || c == "\r" { text.removeLast() }
        return text.isEmpty ? nil : String(text)
    }

    /// Said on stderr when `what` ("pairing code", "invite") came as an argument; `instead`
    /// is the command that reads it from standard input.
    public static func argvWarning(_ what: String, instead: String) -> String {
        "warning: a \(what) given as an argument is visible to other users of this machine (process list) and stays "
            + "in your shell history; next time run `\(instead)` and paste it, or pipe it in\n"
    }
}

/// The prompt goes to the terminal through fd 2 (the `stderr` global is not concurrency-safe).
private func writeErr(_ s: String) {
    var bytes = Array(s.utf8)
    _ = write(2, &bytes, bytes.count)
}
