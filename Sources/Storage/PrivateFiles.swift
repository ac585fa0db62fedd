import Foundation
import Glibc

/// Stores hold pairing and invite secrets and conversation replicas (prompts): only their owner
/// may read them, whatever the umask or the mode of a directory that already existed.
public enum PrivateFiles {
    /// Creates `path` with mode 0600 when missing, or tightens it (and its `-wal`, `-shm`,
    /// `-journal`) to 0600, before SQLite opens it: SQLite gives the files it makes beside a
    /// database the database file's mode. Best effort: SQLite reports a path it cannot open.
    static func prepareStore(_ path: String) {
        guard !path.isEmpty, !path.hasPrefix(":"), !path.hasPrefix("file:") else { return }
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if fd >= 0 {
            tighten(fd, to: 0o600)
            close(fd)
        }
        for suffix in ["-wal", "-shm", "-journal"] {
            let side = open(path + suffix, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            guard side >= 0 else { continue }
            tighten(side, to: 0o600)
            close(side)
        }
    }

    /// Creates directory `path` (and parents) with mode 0700, or tightens one that already
    /// existed: a data directory holds the stores. Throws Foundation's error when it cannot.
    public static func makeDirectory(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        tightenDirectory(path)
    }

    /// Takes group and other bits off directory `path` (mode 0700 at most) when it is ours.
    /// Returns true when it had to: the caller says so once. Key files are refused when others
    /// may read them; a data directory is tightened instead, since the user may have made it
    /// with a default umask before the first run.
    @discardableResult
    public static func tightenDirectory(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return tighten(fd, to: 0o700)
    }

    /// Clears the bits of `fd`'s mode outside `allowed`; true when some were set.
    @discardableResult
    private static func tighten(_ fd: Int32, to allowed: mode_t) -> Bool {
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_uid == geteuid() else { return false }
        let mode = info.st_mode & 0o7777
        guard mode & ~allowed != 0 else { return false }
        return fchmod(fd, mode & allowed) == 0
    }
}
