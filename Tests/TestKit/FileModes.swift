import Glibc

/// The permission bits (`st_mode & 0o777`) of `path`, or nil when it cannot be stat'ed.
public func fileMode(_ path: String) -> mode_t? {
    var info = stat()
    return stat(path, &info) == 0 ? info.st_mode & 0o777 : nil
}
