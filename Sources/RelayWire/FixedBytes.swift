// Fixed-size byte strings: keys (32), signatures (64), ids (16). The length is checked once,
// at construction, so a decoded value can never carry a short key.
import Basics

/// A byte string of one fixed length.
public protocol FixedBytes: Hashable, Sendable {
    /// The exact length.
    static var count: Int { get }
    /// The bytes; always exactly `Self.count` of them.
    var bytes: [UInt8] { get }
    init(unchecked bytes: [UInt8])
}

extension FixedBytes {
    /// Nil unless `bytes` has exactly `Self.count` bytes.
    public init?<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        guard bytes.count == Self.count else { return nil }
        self.init(unchecked: Array(bytes))
    }
    /// The bytes in one pass (the synthesized hash feeds them one at a time): keys are hashed
    /// several times per forwarded frame (routing table, rate limit, peer-gone memory).
    public func hash(into hasher: inout Hasher) { bytes.withUnsafeBytes { hasher.combine(bytes: $0) } }
    /// All zero (e.g. the prefix hash of an empty conversation).
    public static var zero: Self { Self(unchecked: [UInt8](repeating: 0, count: count)) }
    /// Every byte set to `byte` (handy for tests and vectors).
    public static func repeating(_ byte: UInt8) -> Self { Self(unchecked: [UInt8](repeating: byte, count: count)) }
}

/// 16 bytes: a frame id, request id, conversation id, grant id or message id.
public struct Bytes16: FixedBytes {
    public static let count = 16
    public private(set) var bytes: [UInt8]
    public init(unchecked bytes: [UInt8]) { precondition(bytes.count == 16); self.bytes = bytes }
}

/// 32 bytes: a public key or a prefix hash.
public struct Bytes32: FixedBytes {
    public static let count = 32
    public private(set) var bytes: [UInt8]
    public init(unchecked bytes: [UInt8]) { precondition(bytes.count == 32); self.bytes = bytes }
}

/// 32 secret bytes (an invite secret): prints as "<secret>", never as its bytes.
/// `==` is NOT constant-time (it exists for tests): compare secrets with sodium_memcmp.
public struct Secret32: FixedBytes {
    public static let count = 32
    public private(set) var bytes: [UInt8]
    public init(unchecked bytes: [UInt8]) { precondition(bytes.count == 32); self.bytes = bytes }

    /// Overwrites the bytes with zeros (`Basics.wipe`). Copies made earlier are not affected:
    /// keep one copy and wipe it when done (and wipe any encoding that holds it).
    public mutating func wipe() { Basics.wipe(&bytes) }
}

/// 64 bytes: an Ed25519 signature.
public struct Bytes64: FixedBytes {
    public static let count = 64
    public private(set) var bytes: [UInt8]
    public init(unchecked bytes: [UInt8]) { precondition(bytes.count == 64); self.bytes = bytes }
}
