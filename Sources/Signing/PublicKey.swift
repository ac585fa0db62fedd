import Basics
import CSodium

/// An Ed25519 public key: how devices are named to the relay and to each other.
/// Encodes to JSON (`Codable`) as 64 lowercase hex digits.
public struct PublicKey: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Ed25519 public keys are 32 bytes (crypto_sign_PUBLICKEYBYTES).
    public static let byteCount = 32
    /// Ed25519 signatures are 64 bytes (crypto_sign_BYTES).
    public static let signatureByteCount = 64

    /// The 32 raw bytes.
    public let bytes: [UInt8]

    /// Nil unless exactly 32 bytes.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == PublicKey.byteCount else { return nil }
        self.bytes = Array(bytes)
    }

    /// Nil unless exactly 64 hex digits.
    public init?(hex: String) {
        guard let raw = Basics.bytes(fromHex: hex), let key = PublicKey(bytes: raw) else { return nil }
        self = key
    }

    /// 64 lowercase hex digits.
    public var hex: String { hexString(bytes) }

    public var description: String { hex }

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

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let key = PublicKey(hex: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                debugDescription: "a public key is 64 hex digits"))
        }
        self = key
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}

/// A key's first 8 hex digits and an ellipsis, for logs and status lines (`Basics.shortKey`).
package func shortKey(_ key: PublicKey) -> String { shortKey(key.bytes) }
