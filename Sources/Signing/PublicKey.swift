import Basics
import CSodium
import RelayWire

/// An Ed25519 public key: how devices are named to the relay and to each other. The same type as
/// the wire's `Bytes32` (RelayWire: bytes, hex, JSON as 64 hex digits), so a key read off a frame
/// is checked as it is; Signing adds only what needs libsodium.
public typealias PublicKey = Bytes32

extension PublicKey {
    /// Ed25519 public keys are 32 bytes (crypto_sign_PUBLICKEYBYTES).
    public static var byteCount: Int { count }
    /// Ed25519 signatures are 64 bytes (crypto_sign_BYTES).
    public static var signatureByteCount: Int { 64 }

    /// True when `signature` is a valid Ed25519 signature of `message` by this key.
    /// libsodium rejects non-canonical and small-order encodings.
    public func isValidSignature(_ signature: some Collection<UInt8>, for message: some Collection<UInt8>) -> Bool {
        ensureSodium()
        guard signature.count == PublicKey.signatureByteCount else { return false }
        return withBytes(signature) { sig in
            withBytes(message) { msg in
                crypto_sign_verify_detached(u8(sig), u8(msg), UInt64(msg.count), bytes) == 0
            }
        }
    }
}

/// A key's first 8 hex digits and an ellipsis, for logs and status lines (`Basics.shortKey`).
package func shortKey(_ key: PublicKey) -> String { shortKey(key.bytes) }
