import Foundation
import Glibc
import Synchronization
import TestSupport

/// A TCP proxy on loopback between a relay node and its nats-server that the test can freeze:
/// it stops forwarding (and reading) in both directions without closing anything, a link that
/// dies without a FIN. Its sockets have small buffers, so a frozen link backs up onto the
/// nats-server quickly (a slow consumer). A test fixture, not product code.
final class FreezableProxy: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let upstream: Int
    private let frozen = Atomic<Bool>(false)
    private let stopped = Atomic<Bool>(false)

    init(to upstreamPort: Int) throws {
        upstream = upstreamPort
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = Self.loopback(0)
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        guard ok, listen(fd, 16) == 0 else { close(fd); throw SetupError("proxy: cannot listen") }
        listener = fd
        port = Int(UInt16(bigEndian: addr.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    var url: String { "nats://127.0.0.1:\(port)" }

    /// Stop forwarding, keep every socket open (no FIN, no RST).
    func freeze() { frozen.store(true, ordering: .sequentiallyConsistent) }
    func thaw() { frozen.store(false, ordering: .sequentiallyConsistent) }

    func stop() {
        guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    deinit { stop() }

    private func acceptLoop() {
        while !stopped.load(ordering: .sequentiallyConsistent) {
            let client = accept(listener, nil, nil)
            if client < 0 { return }
            Self.smallBuffers(client)
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            Self.smallBuffers(server)
            var addr = Self.loopback(UInt16(upstream))
            let connected = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            guard connected else { close(client); close(server); continue }
            Thread.detachNewThread { [self] in pump(client, server) }
        }
    }

    /// Copies both ways until either side closes (then closes both) or the proxy stops.
    private func pump(_ a: Int32, _ b: Int32) {
        defer { close(a); close(b) }
        var buf = [UInt8](repeating: 0, count: 16_384)
        while !stopped.load(ordering: .sequentiallyConsistent) {
            if frozen.load(ordering: .sequentiallyConsistent) { usleep(10_000); continue }
            var fds = [pollfd(fd: a, events: Int16(POLLIN), revents: 0), pollfd(fd: b, events: Int16(POLLIN), revents: 0)]
            if poll(&fds, 2, 50) <= 0 { continue }
            for (i, from) in [a, b].enumerated() where fds[i].revents != 0 {
                let n = read(from, &buf, buf.count)
                if n <= 0 { return }
                var off = 0
                while off < n {
                    let w = buf.withUnsafeBytes { write(from == a ? b : a, $0.baseAddress! + off, n - off) }
                    if w <= 0 { return }
                    off += w
                }
            }
        }
    }

    private static func smallBuffers(_ fd: Int32) {
        var size: Int32 = 8_192
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    private static func loopback(_ port: UInt16) -> sockaddr_in {
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = port.bigEndian
        return addr
    }
}
