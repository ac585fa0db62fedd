import Basics
import CSodium
import Signing

/// The proof a joiner gives that it holds an invite's secret, without sending the secret:
///
///     invite_prk   = HKDF-Extract(salt = "homebase-invite-v1", ikm = invite secret)
///     proof_key    = HKDF-Expand(invite_prk, "homebase-invite-v1 join proof", 32)
///     secret_proof = HMAC-SHA256(proof_key, host signing key (32) || joiner's device record)
///
/// Binding the host and the joiner's record means a proof seen by anyone cannot be replayed
/// for another device or at another host; the secret never leaves the invite.
public enum InviteProof {
    static let salt = Array("homebase-invite-v1".utf8)
    static let label = Array("homebase-invite-v1 join proof".utf8)
    public static let byteCount = 32

    /// The proof for `joinerRecord` (its encoded bytes) joining `host` with `secret` (32 bytes).
    public static func make(secret: [UInt8], host: PublicKey, joinerRecord: [UInt8]) -> [UInt8] {
        var prk = HKDF.extract(salt: salt, ikm: secret)
        defer { wipe(&prk) }
        var key = HKDF.expand(prk: prk, info: label, length: 32)
        defer { wipe(&key) }
        return HKDF.hmac(key: key, host.bytes, joinerRecord)
    }

    /// Whether `proof` is the proof of `secret` for this host and joiner (constant time).
    public static func matches(_ proof: [UInt8], secret: [UInt8], host: PublicKey, joinerRecord: [UInt8]) -> Bool {
        let expected = make(secret: secret, host: host, joinerRecord: joinerRecord)
        guard proof.count == expected.count else { return false }
        return sodium_memcmp(proof, expected, expected.count) == 0
    }
}
