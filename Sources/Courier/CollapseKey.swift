import Basics
import CSodium
import Signing

extension Courier {
    /// Bytes of a collapse key (BLAKE2b output length).
    public static let collapseKeyLength = 16

    /// The collapse key for mail of `kind` ("advert", "roster", ...) from this device to
    /// `recipient`: the relay keeps only the newest frame per (sender, recipient, key), yet sees
    /// neither the kind nor which keys of two recipients belong to the same kind. Stable across
    /// restarts (derived from the signing key's seed), so a restarted sender still replaces
    /// what it stored before. protocol/SPEC.md, "Homebase's own derivations":
    ///
    ///     collapse_key = BLAKE2b-128(key = BLAKE2b-256(key = seed, "homebase collapse v1"), kind || recipient)
    public func collapseKey(_ kind: String, to recipient: PublicKey) -> [UInt8] {
        Self.collapseKey(seed: identity.signingKey.seed, kind, to: recipient)
    }

    /// The same for the sender whose Ed25519 seed is `seed` (the vectors use this).
    public static func collapseKey(seed signingSeed: SecretBytes, _ kind: String, to recipient: PublicKey) -> [UInt8] {
        ensureSodium()
        var secret = [UInt8](repeating: 0, count: 32)
        defer { wipe(&secret) }
        let label = Array("homebase collapse v1".utf8)
        signingSeed.withUnsafeBytes { seed in
            _ = crypto_generichash(&secret, secret.count, label, UInt64(label.count), u8(seed), seed.count)
        }
        // The recipient key has a fixed length, so kind || recipient parses one way only.
        let input = Array(kind.utf8) + recipient.bytes
        var out = [UInt8](repeating: 0, count: Self.collapseKeyLength)
        _ = crypto_generichash(&out, out.count, input, UInt64(input.count), secret, secret.count)
        return out
    }
}
