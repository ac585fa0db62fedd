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
        ensureSodium()
        var secret = [UInt8](repeating: 0, count: 32)
        defer { wipe(&secret) }
        let label = Array("homebase collapse v1".utf8)
        identity.signingKey.seed.withUnsafeBytes { seed in
            _ = crypto_generichash(&secret, secret.count, label, UInt64(label.count), u8(seed), seed.count)
        }
        // The recipient key has a fixed length, so kind || recipient parses one way only.
        let input = Array(kind.utf8) + recipient.bytes
        var out = [UInt8](repeating: 0, count: Self.collapseKeyLength)
        _ = crypto_generichash(&out, out.count, input, UInt64(input.count), secret, secret.count)
        return out
    }
}
