import Glibc

/// A blocking loopback TCP socket for malformed-input tests (bytes no client library would send).
final class RawSocket {
    let fd: Int32

    init(port: UInt16) throws {
        // A read that waits longer than the hang guard fails the test instead of hanging it.
        guard let fd = connectLoopback(Int(port), receiveTimeout: 20) else { throw TestSetupError("connect failed") }
        self.fd = fd
    }

    /// Connected from `source` (e.g. 127.0.0.2, another "machine" on loopback).
    init(port: UInt16, from source: String, receiveTimeout seconds: Int = 20) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var tv = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        func address(_ host: String, _ port: UInt16) -> sockaddr_in {
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            a.sin_addr.s_addr = inet_addr(host)
            a.sin_port = port.bigEndian
            return a
        }
        var local = address(source, 0), remote = address("127.0.0.1", port)
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) == 0 } }
            && withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, size) == 0 } }
        guard ok else { close(fd); throw TestSetupError("connect from \(source) failed (errno \(errno))") }
    }

    /// Whether the relay has closed this socket already (a read of 0 or a reset within `ms`),
    /// without consuming more than it reads.
    func isClosed(withinMs ms: Int32) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, ms) > 0 else { return false }
        var buf = [UInt8](repeating: 0, count: 4096)
        let n = recv(fd, &buf, buf.count, Int32(MSG_DONTWAIT))
        return n == 0 || (n < 0 && errno == ECONNRESET)
    }

    deinit { close(fd) }

    func write(_ bytes: [UInt8]) throws {
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw TestSetupError("write failed") }
            off += n
        }
    }

    /// Everything until the peer closes (or the receive timeout).
    func readToEnd() -> [UInt8] {
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buf, buf.count, 0)
            if n <= 0 { return out }
            out += buf[0..<n]
        }
    }

    /// Whether the peer closed the connection (EOF or reset) within the receive timeout.
    func closedByPeer() -> (closed: Bool, bytes: [UInt8]) {
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buf, buf.count, 0)
            if n == 0 { return (true, out) }
            if n < 0 { return (errno == ECONNRESET, out) }
            out += buf[0..<n]
        }
    }

    /// The HTTP upgrade request for /v1/connect (a fixed key: the answer is not checked here).
    static let upgradeRequest = Array(("GET /v1/connect HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
        + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8)

    /// A client frame (FIN, opcode), masked unless `masked` is false.
    static func wsFrame(_ payload: [UInt8], opcode: UInt8 = 2, masked: Bool = true) -> [UInt8] {
        var out: [UInt8] = [0x80 | opcode]
        let m: UInt8 = masked ? 0x80 : 0
        if payload.count < 126 { out.append(m | UInt8(payload.count)) }
        else if payload.count <= 0xFFFF { out += [m | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] }
        else { out.append(m | 127); for s in stride(from: 56, through: 0, by: -8) { out.append(UInt8((payload.count >> s) & 0xFF)) } }
        guard masked else { return out + payload }
        let key: [UInt8] = [1, 2, 3, 4]
        out += key
        out += payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
        return out
    }
}
