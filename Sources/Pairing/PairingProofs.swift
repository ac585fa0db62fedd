import CSodium
import Sealing
import Signing
import Wire

/// The MACs that make a pairing safe over a relay that sees everything but the code: each is
/// HMAC-SHA256 keyed with the code's 256-bit secret over a domain string, 0x00 and the bytes it
/// binds. Only a holder of the code can make them; each binds the devices' records, so a relay
/// cannot swap one in.
///
///     request proof = HMAC(secret, "homebase-pair-request-v1" || 0x00 || code id || inviter signing key || joiner record)
///     welcome proof = HMAC(secret, "homebase-pair-welcome-v1" || 0x00 || joiner signing key || welcome body before the proof)
///     confirmation  = HMAC(secret, "homebase-pair-confirm-v1" || 0x00 || inviter record || joiner record), first 4 bytes
///                     as a big-endian u32 mod 10^8, shown as NNNN-NNNN
public enum PairingProofs {
    public static func request(_ code: PairingCode, joiner: DeviceRecord) -> Bytes32 {
        request(secret: code.secret, codeID: code.codeID, inviter: code.inviterSigningKey, joiner: joiner)
    }

    public static func request(secret: Secret32, codeID: Bytes8, inviter: PublicKey, joiner: DeviceRecord) -> Bytes32 {
        Bytes32(unchecked: mac(secret, "homebase-pair-request-v1", codeID.bytes + inviter.bytes + joiner.encoded))
    }

    public static func welcome(secret: Secret32, joiner: PublicKey,
                               _ welcome: AppMessage.PairWelcome) throws(WireError) -> Bytes32 {
        Bytes32(unchecked: mac(secret, "homebase-pair-welcome-v1", joiner.bytes + (try welcome.unprovenBytes())))
    }

    /// The short number both screens show; equal on both when both saw the same two records.
    public static func confirmation(secret: Secret32, inviter: DeviceRecord, joiner: DeviceRecord) -> String {
        let m = mac(secret, "homebase-pair-confirm-v1", inviter.encoded + joiner.encoded)
        let n = (UInt32(m[0]) << 24 | UInt32(m[1]) << 16 | UInt32(m[2]) << 8 | UInt32(m[3])) % 100_000_000
        let digits = String(n)
        let padded = String(repeating: "0", count: 8 - digits.count) + digits
        return padded.prefix(4) + "-" + padded.suffix(4)
    }

    /// Constant-time equality of two 32-byte proofs.
    public static func equal(_ a: Bytes32, _ b: Bytes32) -> Bool {
        ensureSodium()
        return crypto_verify_32(a.bytes, b.bytes) == 0
    }

    static func mac(_ secret: Secret32, _ domain: String, _ bound: [UInt8]) -> [UInt8] {
        ensureSodium()
        let input = Array(domain.utf8) + [0] + bound
        var out = [UInt8](repeating: 0, count: 32)
        _ = crypto_auth_hmacsha256(&out, input, UInt64(input.count), secret.bytes)
        return out
    }

    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        ensureSodium()
        var out = [UInt8](repeating: 0, count: 32)
        _ = crypto_hash_sha256(&out, bytes, UInt64(bytes.count))
        return out
    }
}
