import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// "This model is being downloaded": an exclusive `flock` on a file per model id, held for the
/// whole download by whichever process runs it (the background fetcher, a `guest models pull`).
/// The kernel drops it when that process dies, however it dies: a killed fetcher never leaves
/// a stale lock behind, and the next guest start sees the model wanted and not being fetched.
public final class FetchLock: Sendable {
    private let fd: Int32
    public let path: String

    private init(fd: Int32, path: String) { self.fd = fd; self.path = path }

    deinit { _ = Glibc.close(fd) }  // closing the descriptor releases the lock

    /// Takes the lock; nil when another holder (any process, or another descriptor here) has it.
    public static func acquire(_ path: String) throws -> FetchLock? {
        try? FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                 withIntermediateDirectories: true)
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ModelStoreError.io(path: path, detail: String(cString: strerror(errno))) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let e = errno
            _ = Glibc.close(fd)
            if e == EWOULDBLOCK { return nil }
            throw ModelStoreError.io(path: path, detail: "flock: \(String(cString: strerror(e)))")
        }
        return FetchLock(fd: fd, path: path)
    }

    /// Whether someone holds the lock now (a probe: taken and released at once when free).
    public static func isHeld(_ path: String) -> Bool {
        guard FileManager.default.fileExists(atPath: path) else { return false }
        do { return try acquire(path) == nil } catch { return false }  // unreadable: nobody can hold it
    }
}

extension ModelStore {
    /// The lock file of `id`'s download (`<dir>/models/.fetching/owner_name_QUANT.lock`).
    public func fetchLockPath(_ id: String) -> String {
        let safe = String(id.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? $0 : "_" })
        return "\(config.directory)/models/.fetching/\(safe).lock"
    }

    /// Where background downloads write their output.
    public var fetchLogPath: String { config.directory + "/model-downloads.log" }
}
