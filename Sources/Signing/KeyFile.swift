import Basics
import Glibc

/// Secret key files: raw bytes, mode 0600, written atomically, read only when private.
package enum KeyFile {
    /// Writes `secret` to `path`: a new temporary file beside it (O_EXCL, mode 0600), fsync,
    /// rename over `path`, fsync of the directory. A crash leaves the old file or the new one,
    /// never a torn or world-readable one.
    package static func write(_ secret: SecretBytes, to path: String) throws {
        try secret.withUnsafeBytes { try writeAtomically($0, to: path, mode: 0o600) }
    }

    /// Same atomic write for public data (a device record), with the given mode.
    package static func writePublic(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644) throws {
        try bytes.withUnsafeBytes { try writeAtomically($0, to: path, mode: mode) }
    }

    /// Reads exactly `count` secret bytes. Refuses a file that group or others may read or write
    /// (the error says to `chmod 600`), anything not a regular file, and any other length.
    package static func read(from path: String, count: Int) throws -> SecretBytes {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SigningError.io(operation: "open", path: path, errno: errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SigningError.io(operation: "stat", path: path, errno: errno) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw SigningError.keyFileNotRegular(path: path) }
        guard info.st_mode & 0o077 == 0 else { throw SigningError.keyFileInsecure(path: path) }
        guard info.st_size == count else {
            throw SigningError.keyFileWrongLength(path: path, expected: count, actual: Int(info.st_size))
        }
        return try SecretBytes(count: count) { buf in
            let got = try readFully(fd, into: buf, path: path)
            // The file may have changed between fstat and read: check again what was read.
            guard got == count else {
                throw SigningError.keyFileWrongLength(path: path, expected: count, actual: got)
            }
        }
    }

    /// The public counterpart of `read`, for files of any mode (bounded by `limit` bytes).
    package static func readPublic(from path: String, limit: Int) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SigningError.io(operation: "open", path: path, errno: errno) }
        defer { close(fd) }
        var out = [UInt8](repeating: 0, count: limit + 1)
        let got = try out.withUnsafeMutableBytes { try readFully(fd, into: $0, path: path) }
        guard got <= limit else { throw SigningError.keyFileWrongLength(path: path, expected: limit, actual: got) }
        return Array(out.prefix(got))
    }

    private static func readFully(_ fd: Int32, into buf: UnsafeMutableRawBufferPointer, path: String) throws -> Int {
        let (done, failure) = Basics.readFully(fd, into: buf)
        if let failure { throw SigningError.io(operation: "read", path: path, errno: failure) }
        return done
    }

    private static func writeAtomically(_ bytes: UnsafeRawBufferPointer, to path: String, mode: mode_t) throws {
        let suffix = hexString(SecretBytes.random(count: 6).withUnsafeBytes { Array($0) })
        let temp = path + ".tmp-" + suffix
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
        guard fd >= 0 else { throw SigningError.io(operation: "create", path: temp, errno: errno) }
        var committed = false
        defer { if !committed { unlink(temp) } }
        do {
            defer { close(fd) }
            // The umask may have narrowed `mode`; never widened. Set it exactly.
            guard fchmod(fd, mode) == 0 else { throw SigningError.io(operation: "chmod", path: temp, errno: errno) }
            guard writeFully(fd, bytes) else { throw SigningError.io(operation: "write", path: temp, errno: errno) }
            guard fsync(fd) == 0 else { throw SigningError.io(operation: "fsync", path: temp, errno: errno) }
        }
        guard rename(temp, path) == 0 else { throw SigningError.io(operation: "rename", path: path, errno: errno) }
        committed = true
        try syncDirectory(of: path)
    }

    /// Makes the rename durable.
    private static func syncDirectory(of path: String) throws {
        let dir: String
        if let slash = path.lastIndex(of: "/") {
            dir = slash == path.startIndex ? "/" : String(path[..<slash])
        } else {
            dir = "."
        }
        let fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw SigningError.io(operation: "open", path: dir, errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw SigningError.io(operation: "fsync", path: dir, errno: errno) }
    }
}
