import COpenSSL

/// The process's one BIO method for connections (shim.h; read-only once made).
nonisolated(unsafe) private let connectionBIOMethod: OpaquePointer? = hb_bio_method_new()

/// One TLS connection as a codec over one BIO of our own (`hb_bio_io`, shim.h): OpenSSL reads
/// ciphertext straight from the bytes the socket gave (`withInput`) and writes it into an output
/// buffer the connection drains to the socket after every call. No memory BIO copies either way;
/// a record cut across reads waits in OpenSSL's own record buffer. It never touches the socket,
/// so TLS is just a layer of `Connection`, and testable without one.
///
/// A server session made with `handOff` keeps OpenSSL for the handshake only: once a TLS 1.3
/// handshake ends in a state safe to take over (`takeOver`), the records are ours
/// (`TLSRecordLayer`) and the SSL object is freed, with its ~10 KiB of per-connection state.
final class TLSSession {
    enum Progress: Equatable { case done, inProgress, failed(TransportError) }
    enum Read: Equatable { case bytes(Int), needMore, closed, failed(TransportError) }

    /// The most plaintext one TLS record carries.
    static let maxRecordPlaintext = 16 * 1024
    /// The room every `read` needs in its buffer: one record's content with its type and padding.
    static let readRoom = TLSRecordLayer.maxOpened

    /// OpenSSL's connection; nil once the own record layer took over.
    private var ssl: OpaquePointer?
    private var own: TLSRecordLayer?
    private let pin: [UInt8]?
    private let io: UnsafeMutablePointer<hb_bio_io>
    /// Where the keylog callback leaves the two application traffic secrets (handOff only;
    /// wiped and freed when the handshake ends, whichever layer goes on).
    private var secrets: UnsafeMutablePointer<hb_tls13_secrets>?
    /// The loop's cipher contexts (set by the connection): the own layer needs them.
    var ciphers: AEADContexts?
    private(set) var established = false

    init(ssl: OpaquePointer, server: Bool, pin: [UInt8]?, handOff: Bool = false) throws(TransportError) {
        self.ssl = ssl
        self.pin = pin
        io = .allocate(capacity: 1)
        io.initialize(to: hb_bio_io())
        guard let m = connectionBIOMethod, let b = hb_bio_new(m, io) else {
            SSL_free(ssl); io.deallocate(); throw openSSLError("BIO_new")
        }
        SSL_set_bio(ssl, b, b) // one BIO both ways: SSL_set_bio takes its one reference
        if server { SSL_set_accept_state(ssl) } else { SSL_set_connect_state(ssl) }
        if handOff, server {
            let s = UnsafeMutablePointer<hb_tls13_secrets>.allocate(capacity: 1)
            s.initialize(to: hb_tls13_secrets())
            secrets = s
            _ = hb_ssl_set_secrets(ssl, s)
        }
    }

    deinit {
        if let ssl { SSL_free(ssl) } // SSL_free frees the BIO
        own = nil
        dropSecrets()
        io.deallocate()
    }

    /// Whether the records are the own layer's (OpenSSL's SSL object freed).
    var usesOwnRecordLayer: Bool { own != nil }
    /// The own layer's suite, when it took over.
    var ownSuite: TLS13Suite? { own?.suite }
    /// The own layer itself (tests: sequence numbers, key limits).
    var recordLayer: TLSRecordLayer? { own }

    private func dropSecrets() {
        guard let s = secrets else { return }
        if let ssl { _ = hb_ssl_set_secrets(ssl, nil) }
        OPENSSL_cleanse(s, MemoryLayout<hb_tls13_secrets>.size)
        s.deallocate()
        secrets = nil
    }

    /// Hands the connection to the own record layer when that is safe: TLS 1.3, a suite it
    /// speaks, both secrets seen, and OpenSSL holding nothing: no unread plaintext or record
    /// bytes (`SSL_has_pending`; our BIO lets it read exactly the records it needs, so what
    /// follows the client's Finished is still in our input), no KeyUpdate owed, nothing it
    /// wants to write (tickets are off: no record went out under the application key, so both
    /// sequence numbers are 0). Otherwise OpenSSL carries on (TLS 1.2 clients).
    private func takeOver() {
        guard let ssl, let secrets else { return }
        defer { dropSecrets() }
        guard let ciphers, SSL_version(ssl) == hb_tls1_3_version(), let c = SSL_get_current_cipher(ssl),
              let suite = TLS13Suite(openSSLCipherID: UInt(SSL_CIPHER_get_id(c))),
              Int(secrets.pointee.client_len) == suite.hashLength, Int(secrets.pointee.server_len) == suite.hashLength,
              SSL_pending(ssl) == 0, SSL_has_pending(ssl) == 0, SSL_want(ssl) == SSL_NOTHING,
              SSL_get_key_update_type(ssl) == SSL_KEY_UPDATE_NONE else { return }
        let layer = withUnsafeBytes(of: &secrets.pointee.client) { client in
            withUnsafeBytes(of: &secrets.pointee.server) { server in
                TLSRecordLayer(suite, readSecret: UnsafeRawBufferPointer(rebasing: client[0..<suite.hashLength]),
                               writeSecret: UnsafeRawBufferPointer(rebasing: server[0..<suite.hashLength]), io: io, ciphers: ciphers)
            }
        }
        guard let layer else { return }
        own = layer
        dropSecrets()
        SSL_free(ssl)
        self.ssl = nil
    }

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
        guard let ssl else { return .done }
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
        takeOver()
        if let pin, let ssl {
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
        if let own { return io.pointee.input_len == 0 ? .needMore : own.read(into: buffer, drain: drain) }
        guard let ssl else { return .closed }
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
        if let own { return own.write(plaintext, drain: drain) }
        guard let ssl else { return .closed }
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

    /// Asks OpenSSL to send a KeyUpdate with update_requested on the next write (tests: a
    /// client updating the server's keys). False on the own layer or when OpenSSL refuses.
    func requestKeyUpdate() -> Bool {
        guard let ssl else { return false }
        return SSL_key_update(ssl, SSL_KEY_UPDATE_REQUESTED) == 1
    }

    /// The TLS version OpenSSL negotiated (0 once the own layer took over: always TLS 1.3 then).
    var openSSLVersion: Int32 { ssl.map { SSL_version($0) } ?? 0 }

    /// The own layer's gathered write (nil when OpenSSL has the records: the caller gathers).
    func write(parts: UnsafeBufferPointer<UnsafeRawBufferPointer>, drain: () -> Void) -> TransportError?? {
        guard let own else { return nil }
        return .some(own.write(parts: parts, drain: drain))
    }

    /// Queues a close_notify alert (a few dozen bytes: it fits any output left).
    func shutdown() {
        if let own { own.shutdown(); return }
        guard let ssl else { return }
        ERR_clear_error(); _ = SSL_shutdown(ssl)
    }
}
