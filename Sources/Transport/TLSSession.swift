import COpenSSL

/// One TLS connection as a codec over memory BIOs: ciphertext in from the socket, plaintext out to
/// the handler, and the reverse. It never touches the socket, so TLS is just a layer of `Connection`.
final class TLSSession {
    enum Progress: Equatable { case done, inProgress, failed(TransportError) }
    enum Read: Equatable { case bytes(Int), needMore, closed, failed(TransportError) }

    private let ssl: OpaquePointer
    private let pin: [UInt8]?
    private(set) var established = false
    /// Bytes through the BIOs since they were last replaced (see `releaseIdleBuffers`).
    private var bioTraffic = 0

    init(ssl: OpaquePointer, server: Bool, pin: [UInt8]?) throws(TransportError) {
        self.ssl = ssl
        self.pin = pin
        guard let r = Self.memBIO(), let w = Self.memBIO() else { SSL_free(ssl); throw openSSLError("BIO_new") }
        SSL_set_bio(ssl, r, w)
        if server { SSL_set_accept_state(ssl) } else { SSL_set_connect_state(ssl) }
    }

    deinit { SSL_free(ssl) } // frees both BIOs

    /// An empty memory BIO reports "retry", not end of file.
    private static func memBIO() -> OpaquePointer? {
        guard let b = BIO_new(BIO_s_mem()) else { return nil }
        _ = BIO_ctrl(b, BIO_C_SET_BUF_MEM_EOF_RETURN, -1, nil)
        return b
    }

    func feed(_ ciphertext: UnsafeRawBufferPointer) {
        bioTraffic += ciphertext.count
        _ = BIO_write(SSL_get_rbio(ssl), ciphertext.baseAddress, Int32(ciphertext.count))
    }

    func handshake() -> Progress {
        ERR_clear_error()
        let r = SSL_do_handshake(ssl)
        if r == 1 {
            established = true
            bioTraffic = Int.max / 2 // the handshake's flights are done: let the next idle moment drop their buffers
            if let pin {
                guard let cert = SSL_get1_peer_certificate(ssl) else { return .failed(.certificatePinMismatch) }
                defer { X509_free(cert) }
                let got = derSHA256(cert)
                guard got.count == 32, CRYPTO_memcmp(got, pin, 32) == 0 else { return .failed(.certificatePinMismatch) }
            }
            return .done
        }
        switch SSL_get_error(ssl, r) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return .inProgress
        default: return .failed(openSSLError("handshake"))
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Read {
        // An SSL_read with nothing to read would re-allocate the 16 KiB record buffer that
        // SSL_MODE_RELEASE_BUFFERS just freed, and keep it for the whole idle time.
        if SSL_pending(ssl) == 0, BIO_ctrl_pending(SSL_get_rbio(ssl)) == 0 { return .needMore }
        ERR_clear_error()
        let n = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
        if n > 0 { return .bytes(Int(n)) }
        switch SSL_get_error(ssl, n) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return .needMore
        case SSL_ERROR_ZERO_RETURN: return .closed
        default: return .failed(openSSLError("read"))
        }
    }

    /// Encrypts all of `plaintext` into the outgoing BIO (a memory BIO never pushes back).
    func write(_ plaintext: UnsafeRawBufferPointer) -> TransportError? {
        ERR_clear_error()
        var off = 0
        while off < plaintext.count {
            let n = SSL_write(ssl, plaintext.baseAddress! + off, Int32(min(plaintext.count - off, Int(Int32.max))))
            guard n > 0 else { return openSSLError("write") }
            off += Int(n)
        }
        bioTraffic += plaintext.count
        return nil
    }

    func write(_ plaintext: [UInt8]) -> TransportError? { plaintext.withUnsafeBytes { write($0) } }

    /// Ciphertext waiting to go to the socket, read into an array that is not zeroed first.
    func takeCiphertext() -> [UInt8]? {
        let w = SSL_get_wbio(ssl)
        let n = BIO_ctrl_pending(w)
        guard n > 0 else { return nil }
        let out = [UInt8](unsafeUninitializedCapacity: n) { p, count in
            count = max(0, Int(BIO_read(w, p.baseAddress, Int32(n)))) // never short in practice: the BIO said n were pending
        }
        return out.isEmpty ? nil : out
    }

    /// Queues a close_notify alert.
    func shutdown() { ERR_clear_error(); _ = SSL_shutdown(ssl) }

    /// Memory BIOs keep their largest size forever; when both are empty after real traffic, swap in
    /// fresh ones so an idle connection holds no 16 KiB leftovers.
    func releaseIdleBuffers() {
        guard bioTraffic > 4096, BIO_ctrl_pending(SSL_get_rbio(ssl)) == 0,
              BIO_ctrl_pending(SSL_get_wbio(ssl)) == 0,
              let r = Self.memBIO(), let w = Self.memBIO() else { return }
        SSL_set0_rbio(ssl, r)
        SSL_set0_wbio(ssl, w)
        bioTraffic = 0
    }
}
