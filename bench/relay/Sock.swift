import CLinux
import COpenSSL
import Glibc

/// A blocking TCP socket, optionally under TLS (OpenSSL on the fd), with a read buffer.
/// The one client stack every protocol in this benchmark shares.
final class Sock {
    let fd: Int32
    private var ssl: OpaquePointer?
    private var buf: [UInt8]
    private var lo = 0, hi = 0

    /// One client context for the process: no verification (the bench dials its own servers).
    nonisolated(unsafe) static var tlsContext: OpaquePointer? = {
        let ctx = SSL_CTX_new(TLS_client_method())
        SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nil)
        _ = hb_ssl_ctx_set_mode(ctx, hb_ssl_mode_partial_write_and_moving_buffer())
        return ctx
    }()

    /// `source`: a loopback address to connect from (127.0.0.2, ...): each gives the ephemeral
    /// port range again, so 100,000 connections to one port fit. `bufferSize`: the read buffer
    /// (a held idle connection needs little).
    init(port: UInt16, tls: Bool, source: String? = nil, bufferSize: Int = 256 * 1024) throws(BenchError) {
        buf = [UInt8](repeating: 0, count: bufferSize)
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw .io("socket", errno) }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        if let source {
            // IP_BIND_ADDRESS_NO_PORT (24): the port is chosen at connect, per destination.
            setsockopt(fd, Int32(IPPROTO_IP), 24, &one, socklen_t(MemoryLayout<Int32>.size))
            let b = withIPv4(source, port: 0) { bind(fd, $0, $1) }
            guard b == 0 else { let e = errno; close(fd); throw .io("bind to \(source)", e) }
        }
        let r = withIPv4("127.0.0.1", port: port) { connect(fd, $0, $1) }
        guard r == 0 else { let e = errno; close(fd); throw .io("connect to port \(port)", e) }
        if tls {
            ssl = SSL_new(Sock.tlsContext)
            SSL_set_fd(ssl, fd)
            guard SSL_connect(ssl) == 1 else { close(fd); throw .protocolError("TLS handshake failed") }
        }
    }

    /// An accepted server-side socket (raw TCP floor server).
    init(accepted: Int32) {
        buf = [UInt8](repeating: 0, count: 64 * 1024)
        fd = accepted
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit {
        if let ssl { SSL_free(ssl) }
        close(fd)
    }

    func write(_ bytes: [UInt8]) throws(BenchError) {
        var failure: BenchError?
        bytes.withUnsafeBytes { p in do throws(BenchError) { try write(p) } catch { failure = error } }
        if let failure { throw failure }
    }

    func write(_ p: UnsafeRawBufferPointer) throws(BenchError) {
        var off = 0
        while off < p.count {
            let n: Int
            if let ssl { n = Int(SSL_write(ssl, p.baseAddress! + off, Int32(p.count - off))) }
            else { n = Glibc.write(fd, p.baseAddress! + off, p.count - off) }
            guard n > 0 else { throw .io("write", errno) }
            off += n
        }
    }

    /// Fills the buffer with at least one more byte (blocking).
    private func fill() throws(BenchError) {
        if lo == hi { lo = 0; hi = 0 }
        if hi == buf.count {
            buf.replaceSubrange(0..<hi - lo, with: buf[lo..<hi]); hi -= lo; lo = 0
        }
        let n = buf.withUnsafeMutableBytes { p -> Int in
            if let ssl { return Int(SSL_read(ssl, p.baseAddress! + hi, Int32(p.count - hi))) }
            return Glibc.read(fd, p.baseAddress! + hi, p.count - hi)
        }
        guard n > 0 else { throw n == 0 ? .closed : .io("read", errno) }
        hi += n
    }

    /// Exactly `n` bytes, passed to `body` in place (valid only during the call).
    func read<R>(_ n: Int, _ body: (UnsafeRawBufferPointer) throws(BenchError) -> R) throws(BenchError) -> R {
        if n > buf.count - lo, n > buf.count { buf += [UInt8](repeating: 0, count: n - buf.count) }
        while hi - lo < n { try fill() }
        var result: Result<R, BenchError>!
        let start = lo
        buf.withUnsafeBytes { p in
            do throws(BenchError) { result = .success(try body(UnsafeRawBufferPointer(rebasing: p[start..<start + n]))) } catch { result = .failure(error) }
        }
        lo += n
        return try result.get()
    }

    func readBytes(_ n: Int) throws(BenchError) -> [UInt8] { try read(n) { Array($0) } }

    func skip(_ n: Int) throws(BenchError) {
        var left = n
        while left > 0 {
            if hi == lo { try fill() }
            let k = min(left, hi - lo)
            lo += k; left -= k
        }
    }

    /// A line ending in `\r\n` (without it).
    func readLine() throws(BenchError) -> String {
        while true {
            if let i = buf[lo..<hi].firstIndex(of: 10) {
                let line = String(decoding: buf[lo..<i], as: UTF8.self)
                lo = i + 1
                return line.hasSuffix("\r") ? String(line.dropLast()) : line
            }
            try fill()
        }
    }

    /// Bytes waiting without blocking (kernel or TLS buffer): lets a publisher drain replies.
    var hasInput: Bool {
        if hi > lo { return true }
        if let ssl, SSL_pending(ssl) > 0 { return true }
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, 0) > 0
    }

    /// Receive timeout for a subscriber that must stop when nothing more comes.
    func setReadTimeout(ms: Int) {
        var tv = timeval(tv_sec: ms / 1000, tv_usec: (ms % 1000) * 1000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }
}

enum BenchError: Error, CustomStringConvertible {
    case io(String, Int32)
    case closed
    case protocolError(String)
    case usage(String)

    var description: String {
        switch self {
        case .io(let what, let e): "\(what): \(String(cString: strerror(e)))"
        case .closed: "connection closed by the server"
        case .protocolError(let s): s
        case .usage(let s): s
        }
    }
}

/// Calls `body` (bind, connect) with the IPv4 address `host`:`port` as the socket calls take it.
func withIPv4(_ host: String, port: UInt16, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = port.bigEndian
    addr.sin_addr.s_addr = inet_addr(host)
    return withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
}
