import Glibc

/// Why a file could not be read (strerror text; never the contents).
struct FileReadError: Error {
    let reason: String
}

/// Reads a whole small text file (config, allowlist, tokens), at most `limit` bytes.
func readTextFile(_ path: String, limit: Int = 16 * 1024 * 1024) throws(FileReadError) -> String {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw FileReadError(reason: String(cString: strerror(errno))) }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
        let n = read(fd, &chunk, chunk.count)
        if n < 0 {
            if errno == EINTR { continue }
            throw FileReadError(reason: String(cString: strerror(errno)))
        }
        if n == 0 { break }
        bytes += chunk[0..<n]
        if bytes.count > limit { throw FileReadError(reason: "larger than \(limit) bytes") }
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// Creates `path` (mode 0700) if missing; parents must exist.
func ensureDirectory(_ path: String) throws(FileReadError) {
    var st = stat()
    if stat(path, &st) == 0 {
        guard st.st_mode & S_IFMT == S_IFDIR else { throw FileReadError(reason: "exists and is not a directory") }
        return
    }
    guard mkdir(path, 0o700) == 0 || errno == EEXIST else { throw FileReadError(reason: String(cString: strerror(errno))) }
}
