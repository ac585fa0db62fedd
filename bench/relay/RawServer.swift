import CLinux
import Glibc

/// The floor: a blocking TCP server, one thread per direction. `echo` sends each connection's
/// bytes back to it; `forward` pairs connections in accept order and copies each to the other
/// (A -> server -> B, the brokers' path without a broker).
enum RawServer {
    static func run(port: UInt16, forward: Bool) throws(BenchError) -> Never {
        let fd = try listen(port)
        var one: Int32 = 1
        while true {
            let a = accept(fd, nil, nil)
            guard a >= 0 else { continue }
            setsockopt(a, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            if !forward { Thread { copy(from: a, to: a) }.start(); continue }
            let b = accept(fd, nil, nil)
            guard b >= 0 else { close(a); continue }
            setsockopt(b, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            Thread { copy(from: a, to: b) }.start()
            Thread { copy(from: b, to: a) }.start()
        }
    }

    /// A listening socket on 127.0.0.1:`port`.
    static func listen(_ port: UInt16) throws(BenchError) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let r = withIPv4("127.0.0.1", port: port) { bind(fd, $0, $1) }
        guard r == 0, Glibc.listen(fd, 128) == 0 else { throw .io("bind/listen on \(port)", errno) }
        return fd
    }

    private static func copy(from: Int32, to: Int32) {
        var buf = [UInt8](repeating: 0, count: 64 * 1024)
        defer { shutdown(to, Int32(SHUT_WR)) }
        while true {
            let n = buf.withUnsafeMutableBytes { read(from, $0.baseAddress, $0.count) }
            if n <= 0 { return }
            var off = 0
            while off < n {
                let w = buf.withUnsafeBytes { write(to, $0.baseAddress! + off, n - off) }
                if w <= 0 { return }
                off += w
            }
        }
    }
}
