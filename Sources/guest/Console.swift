import CommandLineKit
import Glibc

/// Unbuffered writes to stdout and stderr (tokens must show as they come), and ANSI styling
/// only when the stream is a terminal.
enum Console {
    static func out(_ s: String) { write(1, s) }
    static func err(_ s: String) { write(2, s) }

    static var stdoutIsTTY: Bool { isatty(1) == 1 }
    static var stderrIsTTY: Bool { isatty(2) == 1 }

    /// Dim (faint) text on a terminal, plain otherwise.
    static func dim(_ s: String) -> String { stdoutIsTTY ? "\u{1b}[2m\(s)\u{1b}[0m" : s }
    /// Dim text on stderr when stderr is a terminal.
    static func dimErr(_ s: String) -> String { stderrIsTTY ? "\u{1b}[2m\(s)\u{1b}[0m" : s }
    /// Red text on a terminal, plain otherwise.
    static func red(_ s: String) -> String { stdoutIsTTY ? "\u{1b}[31m\(s)\u{1b}[0m" : s }

    /// Every byte, retried on EINTR (the command-line kit's writer).
    private static func write(_ fd: Int32, _ s: String) { Output.write(fd, s) }
}
