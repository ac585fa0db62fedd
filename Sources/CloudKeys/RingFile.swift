import Glibc
import Signing

/// Reading and writing one ring file: keys separated by LF, mode 0600, read only when private.
enum RingFile {
    /// Upper bound on a ring file (a few hundred keys).
    static let maxBytes = 256 * 1024

    static func read(_ path: String) throws(CloudKeysError) -> [SecretBytes] {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return [] }
            throw .io(operation: "stat", path: path, errno: errno)
        }
        guard info.st_mode & 0o077 == 0 else { throw .insecureStore(path: path) }
        guard info.st_size <= maxBytes else { throw .io(operation: "read", path: path, errno: EFBIG) }
        if info.st_size == 0 { return [] }
        // KeyFile.read checks again on the open descriptor: regular file, private, exact size.
        let all: SecretBytes
        do {
            all = try KeyFile.read(from: path, count: Int(info.st_size))
        } catch SigningError.keyFileInsecure {
            throw .insecureStore(path: path)
        } catch let SigningError.io(op, p, code) {
            throw .io(operation: op, path: p, errno: code)
        } catch {
            throw .io(operation: "read", path: path, errno: EIO)
        }
        return all.withUnsafeBytes { raw in
            raw.split(separator: 0x0A).map { SecretBytes($0) }
        }
    }

    static func write(_ ring: [SecretBytes], to path: String) throws(CloudKeysError) {
        let total = ring.reduce(0) { $0 + $1.count + 1 }
        let joined = SecretBytes(count: total) { dst in
            var at = 0
            for k in ring {
                k.withUnsafeBytes { src in
                    UnsafeMutableRawBufferPointer(rebasing: dst[at..<(at + src.count)]).copyMemory(from: src)
                }
                at += k.count
                dst[at] = 0x0A
                at += 1
            }
        }
        try Dirs.call("write") { try KeyFile.write(joined, to: path) }
    }
}

/// Directories of the store (mode 0700) and errors from Signing mapped to this module's.
enum Dirs {
    static func ensure(_ path: String) throws(CloudKeysError) {
        if mkdir(path, 0o700) != 0, errno != EEXIST {
            // The data directory itself may be missing: create the parents, then retry.
            let parent = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
            if !parent.isEmpty, parent != path { try ensure(parent) }
            if mkdir(path, 0o700) != 0, errno != EEXIST { throw .io(operation: "mkdir", path: path, errno: errno) }
        }
    }

    static func call(_ op: String, _ body: () throws -> Void) throws(CloudKeysError) {
        do {
            try body()
        } catch let SigningError.io(o, p, code) {
            throw .io(operation: o, path: p, errno: code)
        } catch {
            throw .io(operation: op, path: "key store", errno: EIO)
        }
    }
}
