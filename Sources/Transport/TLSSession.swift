import COpenSSL

/// The process's one BIO method for connections (shim.h; read-only once made).
nonisolated(unsafe) private let connectionBIOMethod: OpaquePointer? = hb_bio_method_new()

/// One TLS connection as a codec over one BIO of our own (`hb_bio_io`, shim.h): OpenSSL reads
/// ciphertext straight from the bytes the socket gave (`withInput`) and writes it into an output
/// buffer the connection drains to the socket after every call. No memory BIO copies either way;
/// a record cut across reads waits in OpenSSL's own record buffer. It never touches the socket,
/// so TLS is just a layer of `Connection`, and testable without one.
final class TLSSession {
    enum Progress: Equatable { case done, inProgress, failed(TransportError) }
    enum Read: Equatable { case bytes(Int), needMore, closed, failed(TransportError) }

    /// The most plaintext one TLS record carries.
    static let maxRecordPlaintext = 16 * 1024

    private let ssl: OpaquePointer
    private let pin: [UInt8]?
    private let io: UnsafeMutablePointer<hb_bio_io>
    private(set) var established = false

    init(ssl: OpaquePointer, server: Bool, pin: [UInt8]?) throws(TransportError) {
        self.ssl = ssl
        self.pin = pin
        io = .allocate(capacity: 1)
        io.initialize(to: hb_bio_io())
        guard let m = connectionBIOMethod, let b = hb_bio_new(m, io) else {
            SSL_free(ssl); io.deallocate(); throw openSSLError("BIO_new")
        }
        SSL_set_bio(ssl, b, b) // one BIO both ways: SSL_set_bio takes its one reference
        if server { SSL_set_accept_state(ssl) } else { SSL_set_connect_state(ssl) }
    }

    deinit { SSL_free(ssl); io.deallocate() } // SSL_free frees the BIO

    /// Where ciphertext goes (a buffer of the loop's, shared: drained after every call).
    func setOutput(_ buffer: UnsafeMutableRawBufferPointer) {
        io.pointee.output = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
        io.pointee.output_cap = buffer.count
        io.pointee.output_len = 0
    }

    /// Ciphertext written and not yet taken.
    var output: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: io.pointee.output, count: io.pointee.output_len) }
    func clearOutput() { io.pointee.output_len = 0 }

    /// Makes `ciphertext` readable by OpenSSL during `body` (no copy). OpenSSL takes what it
    /// reads; what `body` leaves unread is forgotten (it only stops early on a closing connection).
    func withInput<R, E: Error>(_ ciphertext: UnsafeRawBufferPointer, _ body: () throws(E) -> R) throws(E) -> R {
        io.pointee.input = ciphertext.baseAddress?.assumingMemoryBound(to: UInt8.self)
        io.pointee.input_len = ciphertext.count
        defer { io.pointee.input = nil; io.pointee.input_len = 0 }
        return try body()
    }

    /// Input bytes OpenSSL has not read yet (inside `withInput`).
    var unreadInput: Int { io.pointee.input_len }

    /// `drain` empties the output when it is full (a handshake flight larger than it).
    func handshake(drain: () -> Void) -> Progress {
        while true {
            ERR_clear_error()
            let r = SSL_do_handshake(ssl)
            if r == 1 { return finishedHandshake() }
            switch SSL_get_error(ssl, r) {
            case SSL_ERROR_WANT_WRITE where io.pointee.output_len > 0: drain()
            case SSL_ERROR_WANT_READ: return .inProgress
            default: return .failed(openSSLError("handshake"))
            }
        }
    }

    private func finishedHandshake() -> Progress {
        established = true
        if let pin {
            guard let cert = SSL_get1_peer_certificate(ssl) else { return .failed(.certificatePinMismatch) }
            defer { X509_free(cert) }
            let got = derSHA256(cert)
            guard got.count == 32, CRYPTO_memcmp(got, pin, 32) == 0 else { return .failed(.certificatePinMismatch) }
        }
        return .done
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, drain: () -> Void) -> Read {
        // An SSL_read with nothing to read would re-allocate the 16 KiB record buffer that
        // SSL_MODE_RELEASE_BUFFERS just freed, and keep it for the whole idle time.
        if SSL_pending(ssl) == 0, io.pointee.input_len == 0 { return .needMore }
        while true {
            ERR_clear_error()
            let n = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
            if n > 0 { return .bytes(Int(n)) }
            switch SSL_get_error(ssl, n) {
            case SSL_ERROR_WANT_WRITE where io.pointee.output_len > 0: drain() // a reply OpenSSL owes (key update)
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return .needMore
            case SSL_ERROR_ZERO_RETURN: return .closed
            default: return .failed(openSSLError("read"))
            }
        }
    }

    /// Encrypts all of `plaintext` into the output, calling `drain` whenever it is full.
    func write(_ plaintext: UnsafeRawBufferPointer, drain: () -> Void) -> TransportError? {
        var off = 0
        while off < plaintext.count {
            ERR_clear_error()
            let n = SSL_write(ssl, plaintext.baseAddress! + off, Int32(min(plaintext.count - off, Int(Int32.max))))
            if n > 0 { off += Int(n); continue }
            // A full output: the record waits in OpenSSL; the same bytes are offered again after the drain.
            guard SSL_get_error(ssl, n) == SSL_ERROR_WANT_WRITE, io.pointee.output_len > 0 else { return openSSLError("write") }
            drain()
        }
        return nil
    }

    /// Queues a close_notify alert (a few dozen bytes: it fits any output left).
    func shutdown() { ERR_clear_error(); _ = SSL_shutdown(ssl) }
}
