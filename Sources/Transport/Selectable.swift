import CLinux
import Glibc

/// Anything the loop watches for readiness: a listener, a connection, a connect in progress.
protocol Selectable: AnyObject {
    /// `events` are epoll bits (EPOLLIN, EPOLLOUT, EPOLLERR, EPOLLHUP).
    func handle(events: UInt32)
    /// The loop is shutting down: release the descriptor and tell the owner.
    func loopDidStop()
}

enum Epoll {
    static let readable = EPOLLIN.rawValue
    static let writable = EPOLLOUT.rawValue
    static let error = EPOLLERR.rawValue | EPOLLHUP.rawValue
    static let readHangup = EPOLLRDHUP.rawValue
}

/// A thin wrapper that turns -1 into a TransportError with the call's name.
@discardableResult
func sys(_ call: String, _ r: Int32) throws(TransportError) -> Int32 {
    if r < 0 { throw .system(call: call, errno: hb_errno()) }
    return r
}

func setNonBlockingCloexec(_ fd: Int32) {
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
}
