import COpenSSL

/// The loop's shared AEAD cipher contexts for the own TLS record layer (loop thread only): one
/// per suite and direction, the key set per record only when it changes (a connection's key is
/// not set again while it sends records back to back). So a connection holds keys, not an
/// `EVP_CIPHER_CTX` (~1 KiB each, two per OpenSSL connection).
final class AEADContexts {
    private var contexts: [OpaquePointer?] = Array(repeating: nil, count: TLS13Suite.allCases.count * 2)
    private var installed: [UInt64] = Array(repeating: 0, count: TLS13Suite.allCases.count * 2)
    private var lastKeyID: UInt64 = 0

    init() {}

    deinit { for c in contexts { if let c { EVP_CIPHER_CTX_free(c) } } }

    /// A fresh id for a key being installed (0 is never used: "no key yet").
    func nextKeyID() -> UInt64 { lastKeyID += 1; return lastKeyID }

    /// The context for `suite` in one direction, ready for one record under `keys` (its nonce
    /// set from the sequence number); nil when OpenSSL fails.
    func ready(_ keys: TrafficKeys, encrypt: Bool) -> OpaquePointer? {
        let slot = Int(keys.suite.rawValue & 0xff - 1) * 2 + (encrypt ? 1 : 0)
        let enc: Int32 = encrypt ? 1 : 0
        if contexts[slot] == nil {
            guard let c = EVP_CIPHER_CTX_new() else { return nil }
            guard EVP_CipherInit_ex(c, keys.suite.cipher, nil, nil, nil, enc) == 1 else { EVP_CIPHER_CTX_free(c); return nil }
            contexts[slot] = c
        }
        let ctx = contexts[slot]!
        return withUnsafeTemporaryAllocation(byteCount: TLS13Suite.ivLength, alignment: 8) { nonce -> OpaquePointer? in
            defer { OPENSSL_cleanse(nonce.baseAddress, nonce.count) }
            keys.nonce(into: nonce)
            let n = nonce.baseAddress!.assumingMemoryBound(to: UInt8.self)
            if installed[slot] == keys.keyID {
                guard EVP_CipherInit_ex(ctx, nil, nil, nil, n, enc) == 1 else { return nil }
            } else {
                installed[slot] = 0
                guard EVP_CipherInit_ex(ctx, nil, nil, keys.key.baseAddress!.assumingMemoryBound(to: UInt8.self), n, enc) == 1 else { return nil }
                installed[slot] = keys.keyID
            }
            return ctx
        }
    }

    /// Forgets a key its owner is wiping: a context that holds it gets an all-zero key instead,
    /// so no copy of it outlives the connection in the shared context.
    func forget(_ keyID: UInt64) {
        let zero = [UInt8](repeating: 0, count: TLS13Suite.maxKeyLength)
        for i in installed.indices where installed[i] == keyID {
            installed[i] = 0
            if let c = contexts[i] { _ = EVP_CipherInit_ex(c, nil, nil, zero, nil, -1) }
        }
    }
}
