import Foundation
import Glibc
import Synchronization

/// Ports `freePort()` handed out in this process: the kernel may give a just-closed port to the
/// next bind(0), so two children of one test (a relay and its engine) could be told the same port.
private let handedOut = Mutex<Set<Int>>([])

/// A loopback port that nothing listens on: bound, then closed (free for a child to take), and
/// never one this process handed out before.
public func freePort() throws -> Int {
    for _ in 0..<64 {
        let port = try anyFreePort()
        if handedOut.withLock({ $0.insert(port).inserted }) { return port }
    }
    throw SetupError("no loopback port left that this process has not handed out")
}

private func anyFreePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var addr = loopback(port: 0)
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { p -> Bool in
            bind(fd, p, len) == 0 && getsockname(fd, p, &len) == 0
        }
    }
    guard bound else { throw SetupError("could not bind a loopback port") }
    return Int(UInt16(bigEndian: addr.sin_port))
}

/// Whether something accepts TCP connections on 127.0.0.1:`port`.
public func canConnect(_ port: Int) -> Bool {
    guard let fd = connectLoopback(port) else { return false }
    close(fd)
    return true
}

/// A blocking TCP socket connected to 127.0.0.1:`port` (the caller closes it), nil when nothing
/// accepts. With `receiveTimeout`, a read waiting longer fails instead of hanging the test.
public func connectLoopback(_ port: Int, receiveTimeout seconds: Int? = nil) -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    if let seconds {
        var tv = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }
    var addr = loopback(port: UInt16(port))
    let connected = withUnsafePointer(to: &addr) { ptr in
        ptr.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
    guard connected else { close(fd); return nil }
    return fd
}

private func loopback(port: UInt16) -> sockaddr_in {
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    addr.sin_port = port.bigEndian
    return addr
}
