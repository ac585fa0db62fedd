import Basics
import Glibc

/// `guest serve --token-file FILE`: the bearer token kept in a file only this user can read, so
/// it is never an argument (`/proc/PID/cmdline`, shell history). A missing file is created
/// (mode 0600, a random 256-bit token in hex) and serve says where; a file that group or
/// others may read is refused with the `chmod 600` that fixes it, as key files are.
public enum TokenFile {
    /// The token in `path` (its first line, surrounding spaces dropped), made first when the
    /// file does not exist (unless `create` is false). `created` is true when it was made now.
    public static func load(_ path: String, create: Bool = true) throws(LocalAPIError) -> (token: String, created: Bool) {
        if create, access(path, F_OK) != 0, errno == ENOENT {
            let token = randomHex(32)
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard fd >= 0 else { throw .tokenFile(path: path, detail: "cannot be created (\(String(cString: strerror(errno))))") }
            defer { close(fd) }
            let line = Array((token + "\n").utf8)
            guard fchmod(fd, 0o600) == 0, line.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == line.count else {
                unlink(path)
                throw .tokenFile(path: path, detail: "cannot be written (\(String(cString: strerror(errno))))")
            }
            return (token, true)
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .tokenFile(path: path, detail: "cannot be read (\(String(cString: strerror(errno))))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { throw .tokenFile(path: path, detail: "is not a regular file") }
        guard info.st_mode & 0o077 == 0 else {
            throw .tokenFile(path: path, detail: "group or others may read it; run chmod 600 \(path)")
        }
        var bytes = [UInt8](repeating: 0, count: 4097)
        let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n >= 0 else { throw .tokenFile(path: path, detail: "cannot be read") }
        guard n < bytes.count else { throw .tokenFile(path: path, detail: "is over 4 KiB; it should hold one line, the token") }
        let first = bytes.prefix(n).split(separator: 0x0A, omittingEmptySubsequences: false).first ?? []
        var line = Substring(decoding: first, as: UTF8.self)
        while let c = line.first, c == " " || c == "\t" { line.removeFirst() }
        while let c = line.last, c == " " || c == "\t" || c == "\r" { line.removeLast() }
        guard !line.isEmpty else { throw .tokenFile(path: path, detail: "holds no token on its first line") }
        return (String(line), false)
    }

    /// `count` random bytes (the system generator: getrandom) as lowercase hex.
    static func randomHex(_ count: Int) -> String {
        var g = SystemRandomNumberGenerator()
        return hexString((0..<count).map { _ in UInt8.random(in: 0...255, using: &g) })
    }
}
