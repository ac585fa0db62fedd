import CLinux
import COpenSSL
import Glibc

/// The TLS floor (#24): what TLS itself costs on the brokers' path, A → server → B. A blocking
/// forwarder on raw OpenSSL with the relay's server settings (same certificate, defaults, no
/// tickets): pairs connections in accept order, one thread per pair that polls both sockets and
/// copies each record's bytes to the other side (one thread, so no SSL object is used by two).
enum TLSForwarder {
    static func run(port: UInt16, cert: String, key: String) throws(BenchError) -> Never {
        guard let ctx = SSL_CTX_new(TLS_server_method()),
              SSL_CTX_use_certificate_chain_file(ctx, cert) == 1,
              SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) == 1 else { throw .protocolError("TLS floor: certificate") }
        _ = hb_ssl_ctx_set_min_tls12(ctx)
        _ = hb_ssl_ctx_set_mode(ctx, hb_ssl_mode_partial_write_and_moving_buffer())
        _ = SSL_CTX_set_num_tickets(ctx, 0)
        let fd = try RawServer.listen(port)
        while true {
            guard let a = accepted(fd, ctx) else { continue }
            guard let b = accepted(fd, ctx) else { SSL_free(a.ssl); close(a.fd); continue }
            let pair = Handoff(value: (a, b))
            Thread { pump(pair.value.0, pair.value.1) }.start()
        }
    }

    private static func accepted(_ listener: Int32, _ ctx: OpaquePointer) -> (fd: Int32, ssl: OpaquePointer)? {
        let fd = accept(listener, nil, nil)
        guard fd >= 0 else { return nil }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        guard let ssl = SSL_new(ctx) else { close(fd); return nil }
        SSL_set_fd(ssl, fd)
        guard SSL_accept(ssl) == 1 else { SSL_free(ssl); close(fd); return nil }
        return (fd, ssl)
    }

    private static func pump(_ a: (fd: Int32, ssl: OpaquePointer), _ b: (fd: Int32, ssl: OpaquePointer)) {
        var buf = [UInt8](repeating: 0, count: 64 * 1024)
        var fds = [pollfd(fd: a.fd, events: Int16(POLLIN), revents: 0), pollfd(fd: b.fd, events: Int16(POLLIN), revents: 0)]
        let ends = [a, b]
        defer { for e in ends { SSL_free(e.ssl); close(e.fd) } }
        while true {
            // Bytes already decrypted inside OpenSSL do not show on the socket.
            let pending = ends.map { SSL_pending($0.ssl) > 0 }
            if !pending.contains(true) {
                for i in 0..<2 { fds[i].revents = 0 }
                guard poll(&fds, 2, -1) > 0 else { return }
            }
            for i in 0..<2 where pending[i] || fds[i].revents != 0 {
                let n = buf.withUnsafeMutableBytes { Int(SSL_read(ends[i].ssl, $0.baseAddress, Int32($0.count))) }
                if n <= 0 { return }
                var off = 0
                while off < n {
                    let w = buf.withUnsafeBytes { Int(SSL_write(ends[1 - i].ssl, $0.baseAddress! + off, Int32(n - off))) }
                    if w <= 0 { return }
                    off += w
                }
                fds[i].revents = 0
            }
        }
    }
}
