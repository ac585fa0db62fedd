import Glibc

/// Reads one line from standard input without echoing it when stdin is a terminal, into memory
/// that is wiped after use. The line ending is not part of the secret.
public enum SecretInput {
    public static func readLine(prompt: String? = nil) -> [UInt8]? {
        let tty = isatty(0) == 1
        var saved = termios()
        if tty {
            if let prompt { writeErr(prompt) }
            tcgetattr(0, &saved)
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(0, TCSAFLUSH, &quiet)
        }
        defer {
            if tty {
                tcsetattr(0, TCSAFLUSH, &saved)
                writeErr("\n")
            }
        }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let n = read(0, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 || byte == 0x0A { break }
            line.append(byte)
            if line.count > CloudKeyStore.maxKeyBytes * 2 { break }
        }
        if line.isEmpty && byte != 0x0A { return nil }
        while line.last == 0x0D || line.last == 0x20 || line.last == 0x09 { line.removeLast() }
        return line
    }
}

/// The prompt goes to the terminal through fd 2 (the `stderr` global is not concurrency-safe).
private func writeErr(_ s: String) {
    var bytes = Array(s.utf8)
    _ = write(2, &bytes, bytes.count)
}
