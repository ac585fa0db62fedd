import COpenSSL
import Synchronization

/// OpenSSL's queued errors as one line (reasons only: they never contain key material).
func openSSLError(_ what: String) -> TransportError {
    var reasons: [String] = []
    while true {
        let e = ERR_get_error()
        if e == 0 { break }
        var buf = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(e, &buf, buf.count)
        reasons.append(String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    return .tls(reasons.isEmpty ? what : "\(what): \(reasons.joined(separator: "; "))")
}

/// Settings every context shares: TLS 1.2 minimum, partial writes, buffers released when idle
/// (SSL_MODE_RELEASE_BUFFERS: an idle connection keeps no 16 KiB record buffers).
func makeBaseContext(_ method: OpaquePointer?) throws(TransportError) -> OpaquePointer {
    ERR_clear_error()
    guard let ctx = SSL_CTX_new(method) else { throw openSSLError("SSL_CTX_new") }
    guard hb_ssl_ctx_set_min_tls12(ctx) == 1 else { SSL_CTX_free(ctx); throw openSSLError("minimum TLS version") }
    _ = hb_ssl_ctx_set_mode(ctx, hb_ssl_mode_partial_write_and_moving_buffer())
    return ctx
}

/// Who protects the records of a server connection once its handshake is done.
public enum TLSRecordLayerChoice: String, Sendable, CaseIterable {
    /// OpenSSL for the whole connection.
    case openssl
    /// OpenSSL for the handshake, then the own TLS 1.3 record layer (`TLSRecordLayer`) and the
    /// SSL object freed: ~10 KiB less per idle connection. TLS 1.2 connections stay on OpenSSL.
    case own
}

/// The server's certificate and key, swappable at run time (SIGHUP) without dropping connections:
/// each SSL object holds a reference to the context it was made from, so existing connections
/// keep the old certificate and new ones get the new one.
public final class TLSServerContext: @unchecked Sendable {
    public let certificateFile: String
    public let keyFile: String
    public let recordLayer: TLSRecordLayerChoice
    private let current: Mutex<ContextRef>

    /// An SSL_CTX* crossing threads: OpenSSL contexts are reference-counted and thread-safe.
    private struct ContextRef: @unchecked Sendable { let ctx: OpaquePointer }

    /// Loads a PEM certificate chain and its PEM private key; fails if they do not match.
    public init(certificateFile: String, keyFile: String, recordLayer: TLSRecordLayerChoice = .own) throws(TransportError) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.recordLayer = recordLayer
        current = Mutex(ContextRef(ctx: try Self.load(certificateFile, keyFile, recordLayer)))
    }

    deinit { current.withLock { SSL_CTX_free($0.ctx) } }

    /// Re-reads the files. On failure the old certificate stays in use and the error is thrown.
    public func reload() throws(TransportError) {
        let fresh = ContextRef(ctx: try Self.load(certificateFile, keyFile, recordLayer))
        let old = current.withLock { c in
            defer { c = fresh }
            return c
        }
        SSL_CTX_free(old.ctx)
    }

    func makeSession() throws(TransportError) -> TLSSession {
        let ssl = current.withLock { SSL_new($0.ctx) }
        guard let ssl else { throw openSSLError("SSL_new") }
        return try TLSSession(ssl: ssl, server: true, pin: nil, handOff: recordLayer == .own)
    }

    private static func load(_ cert: String, _ key: String, _ layer: TLSRecordLayerChoice) throws(TransportError) -> OpaquePointer {
        let ctx = try makeBaseContext(TLS_server_method())
        guard SSL_CTX_use_certificate_chain_file(ctx, cert) == 1,
              SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) == 1,
              SSL_CTX_check_private_key(ctx) == 1 else {
            SSL_CTX_free(ctx)
            throw openSSLError("loading certificate or key")
        }
        // No TLS 1.3 tickets and no server session cache: cached sessions grow with every client,
        // and relay connections are long-lived, so resumption buys little.
        _ = SSL_CTX_set_num_tickets(ctx, 0)
        _ = SSL_CTX_ctrl(ctx, SSL_CTRL_SET_SESS_CACHE_MODE, Int(SSL_SESS_CACHE_OFF), nil)
        // The own record layer takes the application traffic secrets from the keylog callback
        // into the session's memory (never a log, wiped at the end of the handshake).
        if layer == .own { hb_ssl_ctx_capture_secrets(ctx) }
        return ctx
    }
}

/// How a client decides to trust the relay's certificate.
public enum TLSTrust: Sendable, Equatable {
    /// The system's CA store, with host name verification.
    case systemRoots
    /// A CA bundle file (PEM), with host name verification.
    case caFile(String)
    /// Exactly the certificate whose DER encoding has this SHA-256 (a self-signed relay).
    case pinnedSHA256([UInt8])
}

/// A client context; sessions send SNI and verify per `trust`.
public final class TLSClientContext: @unchecked Sendable {
    public let trust: TLSTrust
    private let ctx: OpaquePointer

    public convenience init(trust: TLSTrust) throws(TransportError) { try self.init(trust: trust, tls13Suites: nil) }

    /// `tls13Suites` (OpenSSL's list, e.g. "TLS_CHACHA20_POLY1305_SHA256") and `maxTLS12` pin
    /// what the client offers (tests of the server's record layers).
    init(trust: TLSTrust, tls13Suites: String?, maxTLS12: Bool = false) throws(TransportError) {
        self.trust = trust
        ctx = try makeBaseContext(TLS_client_method())
        if let tls13Suites, SSL_CTX_set_ciphersuites(ctx, tls13Suites) != 1 { SSL_CTX_free(ctx); throw openSSLError("TLS 1.3 suites") }
        if maxTLS12, hb_ssl_ctx_set_max_tls12(ctx) != 1 { SSL_CTX_free(ctx); throw openSSLError("maximum TLS version") }
        switch trust {
        case .systemRoots:
            guard SSL_CTX_set_default_verify_paths(ctx) == 1 else { SSL_CTX_free(ctx); throw openSSLError("system trust store") }
            SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
        case .caFile(let path):
            guard SSL_CTX_load_verify_locations(ctx, path, nil) == 1 else { SSL_CTX_free(ctx); throw openSSLError("CA file") }
            SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
        case .pinnedSHA256(let pin):
            guard pin.count == 32 else { SSL_CTX_free(ctx); throw .tls("a pin is 32 bytes of SHA-256") }
            // The chain is not checked; the fingerprint is, right after the handshake.
            SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nil)
        }
    }

    deinit { SSL_CTX_free(ctx) }

    func makeSession(serverName: String) throws(TransportError) -> TLSSession {
        guard let ssl = SSL_new(ctx) else { throw openSSLError("SSL_new") }
        // SNI is for names only (RFC 6066 section 3): never send an IP literal.
        if !isIPLiteral(serverName) { _ = hb_ssl_set_tlsext_host_name(ssl, serverName) }
        var pin: [UInt8]?
        switch trust {
        case .pinnedSHA256(let p): pin = p
        case .systemRoots, .caFile:
            let ok = isIPLiteral(serverName) ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), serverName)
                                             : SSL_set1_host(ssl, serverName)
            guard ok == 1 else { SSL_free(ssl); throw openSSLError("host name for verification") }
        }
        return try TLSSession(ssl: ssl, server: false, pin: pin)
    }

    /// SHA-256 of a PEM certificate file's DER encoding: the value to pin.
    public static func fingerprint(ofPEMFile path: String) throws(TransportError) -> [UInt8] {
        guard let f = fopen(path, "r") else { throw .tls("cannot open certificate file") }
        defer { fclose(f) }
        guard let x = PEM_read_X509(f, nil, nil, nil) else { throw openSSLError("reading certificate") }
        defer { X509_free(x) }
        return derSHA256(x)
    }
}

func derSHA256(_ x: OpaquePointer) -> [UInt8] {
    let n = i2d_X509(x, nil)
    guard n > 0 else { return [] }
    var der = [UInt8](repeating: 0, count: Int(n))
    der.withUnsafeMutableBufferPointer { p in
        var out: UnsafeMutablePointer<UInt8>? = p.baseAddress
        _ = i2d_X509(x, &out)
    }
    var digest = [UInt8](repeating: 0, count: 32)
    var len: UInt32 = 0
    _ = EVP_Digest(der, der.count, &digest, &len, EVP_sha256(), nil)
    return digest
}

func isIPLiteral(_ s: String) -> Bool {
    s.contains(":") || (!s.isEmpty && s.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || $0 == 46 })
}

#if canImport(Glibc)
import Glibc
#endif
