import Basics
import Signing

/// A 16-byte random message identifier: what the replay guard remembers.
public struct MessageID: Hashable, Sendable, CustomStringConvertible {
    public static let byteCount = 16
    /// The 16 raw bytes.
    public let bytes: [UInt8]

    /// Nil unless exactly 16 bytes.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == MessageID.byteCount else { return nil }
        self.bytes = Array(bytes)
    }

    /// A fresh random id (libsodium CSPRNG); collisions are negligible at 2^-64 after 2^32 ids.
    public static func random() -> MessageID {
        MessageID(bytes: SecretBytes.random(count: byteCount).withUnsafeBytes { Array($0) })!
    }

    public var description: String { hexString(bytes) }
}

/// A sealed envelope ready to send, and what the sender keeps to open the streamed reply.
public struct SealedMessage: Sendable {
    /// The envelope: `version | enc | ciphertext` (see `Envelope`).
    public let bytes: [UInt8]
    public let messageID: MessageID
    /// HPKE Export("homebase stream v1", 32) of this message's context: the key of the reply stream.
    public let streamSecret: SecretBytes
}

/// An opened, authenticated, non-replayed envelope.
public struct OpenedMessage: Sendable {
    public let body: [UInt8]
    public let messageID: MessageID
    /// The sender's clock at sealing, milliseconds since the Unix epoch. Not a freshness proof:
    /// freshness is the receiver's to measure.
    public let timestamp: UInt64
    /// The sender's signing key (equal to the record the caller named as sender).
    public let sender: PublicKey
    /// The same secret the sender holds: seals the reply stream (`StreamSealer`).
    public let streamSecret: SecretBytes
}
