import CSodium
import Signing

/// ChaCha20-Poly1305 (IETF, 96-bit nonce; RFC 8439) from libsodium.
enum AEAD {
    static func seal(key: SecretBytes, nonce: [UInt8], plaintext: some Collection<UInt8>, aad: some Collection<UInt8>) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: plaintext.count + HPKE.tagByteCount)
        var written: UInt64 = 0
        key.withUnsafeBytes { k in
            withBytes(plaintext) { m in
                withBytes(aad) { ad in
                    _ = crypto_aead_chacha20poly1305_ietf_encrypt(
                        &out, &written, u8(m), UInt64(m.count), u8(ad), UInt64(ad.count), nil, nonce, u8(k))
                }
            }
        }
        return out
    }

    /// Nil when the tag does not verify (nothing of the plaintext is returned then).
    static func open(key: SecretBytes, nonce: [UInt8], ciphertext: some Collection<UInt8>, aad: some Collection<UInt8>) -> [UInt8]? {
        guard ciphertext.count >= HPKE.tagByteCount else { return nil }
        let length = ciphertext.count - HPKE.tagByteCount
        // At least one byte so that libsodium always gets a valid output pointer.
        var out = [UInt8](repeating: 0, count: max(1, length))
        var written: UInt64 = 0
        let rc = key.withUnsafeBytes { k in
            withBytes(ciphertext) { c in
                withBytes(aad) { ad in
                    crypto_aead_chacha20poly1305_ietf_decrypt(
                        &out, &written, nil, u8(c), UInt64(c.count), u8(ad), UInt64(ad.count), nonce, u8(k))
                }
            }
        }
        guard rc == 0 else { return nil }
        return length == 0 ? [] : out
    }
}
