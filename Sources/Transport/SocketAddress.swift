import CLinux
import Glibc

/// An IPv4 or IPv6 socket address.
struct SocketAddress {
    var storage = sockaddr_storage()
    var length: socklen_t = 0

    var family: Int32 { Int32(storage.ss_family) }

    /// getaddrinfo; with `numericOnly` it never touches DNS (safe on the loop thread).
    static func resolve(_ host: String, _ port: UInt16, numericOnly: Bool) -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = numericOnly ? AI_NUMERICHOST | AI_NUMERICSERV : AI_NUMERICSERV
        var res: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &res) == 0 else { return [] }
        defer { freeaddrinfo(res) }
        var out: [SocketAddress] = []
        var p = res
        while let ai = p {
            var a = SocketAddress()
            withUnsafeMutableBytes(of: &a.storage) { dst in
                dst.copyMemory(from: UnsafeRawBufferPointer(start: ai.pointee.ai_addr, count: Int(ai.pointee.ai_addrlen)))
            }
            a.length = ai.pointee.ai_addrlen
            out.append(a)
            p = ai.pointee.ai_next
        }
        return out
    }

    init() {}

    init(fd: Int32, peer: Bool) {
        length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                peer ? getpeername(fd, $0, &length) : getsockname(fd, $0, &length)
            }
        }
    }

    var port: UInt16 {
        withUnsafeBytes(of: storage) { b in
            // sin_port and sin6_port sit at the same offset, in network order.
            UInt16(b[2]) << 8 | UInt16(b[3])
        }
    }

    /// "a.b.c.d:port" or "[v6]:port".
    var description: String {
        var buf = [CChar](repeating: 0, count: 64)
        withUnsafeBytes(of: storage) { b in
            let off = family == AF_INET6 ? 8 : 4 // sin6_addr / sin_addr offsets
            _ = inet_ntop(family, b.baseAddress! + off, &buf, socklen_t(buf.count))
        }
        let ip = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return family == AF_INET6 ? "[\(ip)]:\(port)" : "\(ip):\(port)"
    }

    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafePointer(to: storage) { p in p.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) } }
    }
}

func setNoDelay(_ fd: Int32) {
    var one: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
}

/// TCP_USER_TIMEOUT: sent data left unacknowledged this long fails the socket (ETIMEDOUT)
/// instead of after the kernel's ~15 minutes of retransmissions. nil or zero: the kernel's default.
func setUserTimeout(_ fd: Int32, _ timeout: Duration?) {
    guard let timeout, timeout > .zero else { return }
    var ms = UInt32(clamping: timeout.nanoseconds / 1_000_000)
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_USER_TIMEOUT, &ms, socklen_t(MemoryLayout<UInt32>.size))
}
