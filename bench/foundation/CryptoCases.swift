// Sealing cases and their floor: raw libsodium ChaCha20-Poly1305 on the same sizes.
import CSodium
import Sealing
import Signing

enum CryptoCases {
    /// One chunk of a streamed reply: seal, then open in order (64 bytes pad to bucket 128).
    static func streamChunk(_ s: Settings) throws -> Result? {
        let secret = SecretBytes.random(count: 32)
        let sealer = try StreamSealer(secret: secret), opener = try StreamOpener(secret: secret)
        let data = [UInt8](repeating: 0x61, count: 64)
        return try measure("stream chunk seal+open", bytes: 64, settings: s) {
            try opener.open(try sealer.seal(data)).data.count
        }
    }

    /// A request envelope, HPKE auth mode: two X25519 on each side (16 KiB pads to bucket 32768).
    /// `bodyBytes` 0 separates the fixed cost (key agreement, key schedule) from the per-byte one.
    static func envelope(bodyBytes: Int, _ s: Settings) throws -> Result? {
        let alice = try DeviceIdentity.generate(name: "alice", now: 1), bob = try DeviceIdentity.generate(name: "bob", now: 1)
        let body = [UInt8](repeating: 0x62, count: bodyBytes)
        let now: UInt64 = 1_750_000_000_000
        return try measure("envelope seal+open (HPKE auth)", bytes: body.count, settings: s) {
            var replay = ReplayGuard()
            let sealed = try Envelope.seal(body: body, from: alice, to: bob.record, now: now)
            return try Envelope.open(sealed.bytes, by: bob, from: alice.record, replay: &replay, now: now).body.count
        }
    }

    /// The floor: crypto_aead_chacha20poly1305_ietf_encrypt then _decrypt of `size` bytes.
    static func rawAEAD(size: Int, _ s: Settings) throws -> Result? {
        _ = sodium_init()
        let key = [UInt8](repeating: 7, count: 32), nonce = [UInt8](repeating: 9, count: 12), aad = [UInt8](repeating: 0, count: 8)
        let message = [UInt8](repeating: 0x63, count: size)
        var sealed = [UInt8](repeating: 0, count: size + 16), opened = [UInt8](repeating: 0, count: max(1, size))
        return try measure("raw libsodium AEAD encrypt+decrypt", bytes: size, settings: s) {
            var n: UInt64 = 0
            _ = crypto_aead_chacha20poly1305_ietf_encrypt(&sealed, &n, message, UInt64(size), aad, 8, nil, nonce, key)
            let rc = crypto_aead_chacha20poly1305_ietf_decrypt(&opened, &n, nil, sealed, UInt64(sealed.count), aad, 8, nonce, key)
            precondition(rc == 0, "raw AEAD failed to open its own output")
            return Int(n)
        }
    }

    /// The envelope's other floor: one X25519 (`base`: the ephemeral public key; else a DH).
    /// Seal+open does 1 base and 4 variable-base multiplications (HPKE auth: 2 DH per side).
    static func rawX25519(base: Bool, _ s: Settings) throws -> Result? {
        _ = sodium_init()
        var scalar = [UInt8](repeating: 0, count: 32), point = [UInt8](repeating: 0, count: 32)
        randombytes_buf(&scalar, 32)
        _ = crypto_scalarmult_curve25519_base(&point, scalar)
        var out = [UInt8](repeating: 0, count: 32)
        let name = base ? "raw libsodium X25519 base (public key)" : "raw libsodium X25519 (one DH)"
        return try measure(name, bytes: 32, settings: s) {
            let rc = base ? crypto_scalarmult_curve25519_base(&out, scalar) : crypto_scalarmult_curve25519(&out, scalar, point)
            precondition(rc == 0, "X25519 failed")
            return Int(out[0])
        }
    }
}
