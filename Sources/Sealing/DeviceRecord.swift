import Signing

/// The public half of a device: its Ed25519 signing key, its X25519 HPKE key, a name and a
/// creation time, signed by the signing key so that nobody can pair a foreign HPKE key with it.
///
/// A `DeviceRecord` value is always valid: it is made either by signing (`DeviceIdentity`) or by
/// `init(encoded:)`, which verifies the signature.
///
/// Encoding (all integers big-endian):
///
///     offset  size  field
///     0       1     version = 1
///     1       32    Ed25519 signing public key
///     33      32    X25519 HPKE public key, not of small order (`HPKE.PublicKey.hasSmallOrder`)
///     65      8     created, u64 milliseconds since the Unix epoch
///     73      1     name length n, 1...64
///     74      n     name, UTF-8 without control characters (`isShowable`)
///     74+n    64    Ed25519 signature over "homebase device record v1" || 0x00 || bytes[0 ..< 74+n]
public struct DeviceRecord: Hashable, Sendable {
    public static let version: UInt8 = 1
    /// Names are for people (a device list), not identifiers: 64 bytes is plenty.
    public static let maxNameBytes = 64
    /// Domain separation: no other signature of the project starts with these bytes.
    static let signingContext = Array("homebase device record v1".utf8) + [0x00]
    static let fixedBytes = 1 + 32 + 32 + 8 + 1

    public let signingKey: PublicKey
    public let hpkeKey: HPKE.PublicKey
    public let name: String
    /// Milliseconds since the Unix epoch.
    public let createdAt: UInt64
    public let signature: [UInt8]

    /// Signs a new record (used by `DeviceIdentity`). Throws `invalidRecord` for a bad name.
    init(signingKey: SigningKey, hpkeKey: HPKE.PublicKey, name: String, createdAt: UInt64) throws {
        let nameBytes = Array(name.utf8)
        guard (1...DeviceRecord.maxNameBytes).contains(nameBytes.count), DeviceRecord.isShowable(name),
              !hpkeKey.hasSmallOrder else { throw SealingError.invalidRecord }
        self.signingKey = signingKey.publicKey
        self.hpkeKey = hpkeKey
        self.name = name
        self.createdAt = createdAt
        self.signature = signingKey.sign(DeviceRecord.signingContext +
            DeviceRecord.unsignedBytes(signingKey.publicKey, hpkeKey, nameBytes, createdAt))
    }

    /// Decodes and verifies a record. Throws `invalidRecord` for any malformation or bad signature.
    public init(encoded bytes: some Collection<UInt8>) throws {
        let b = Array(bytes)
        guard b.count > DeviceRecord.fixedBytes, b[0] == DeviceRecord.version else { throw SealingError.invalidRecord }
        let n = Int(b[73])
        guard (1...DeviceRecord.maxNameBytes).contains(n),
              b.count == DeviceRecord.fixedBytes + n + PublicKey.signatureByteCount,
              let name = String(validating: b[74..<(74 + n)], as: UTF8.self), DeviceRecord.isShowable(name) else {
            throw SealingError.invalidRecord
        }
        // A small-order HPKE key makes every seal to the device fail: never let one into a roster.
        let hpkeKey = HPKE.PublicKey(bytes: b[33..<65])!
        guard !hpkeKey.hasSmallOrder else { throw SealingError.invalidRecord }
        let signingKey = PublicKey(bytes: b[1..<33])!
        let signature = Array(b[(74 + n)...])
        guard signingKey.isValidSignature(signature, for: DeviceRecord.signingContext + b[..<(74 + n)]) else {
            throw SealingError.invalidRecord
        }
        self.signingKey = signingKey
        self.hpkeKey = hpkeKey
        self.createdAt = readBigEndian(b, at: 65, count: 8)
        self.name = name
        self.signature = signature
    }
}

extension DeviceRecord {
    /// A name holds no control character, line separator or bidirectional override: it reaches
    /// logs and terminals. The same rule as Wire's `Printable.isUnsafe` (Sealing does not import Wire).
    static func isShowable(_ name: String) -> Bool {
        !name.unicodeScalars.contains { s in
            switch s.value {
            case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
            default: false
            }
        }
    }

    /// The encoding described on the type.
    public var encoded: [UInt8] {
        DeviceRecord.unsignedBytes(signingKey, hpkeKey, Array(name.utf8), createdAt) + signature
    }

    private static func unsignedBytes(_ signingKey: PublicKey, _ hpkeKey: HPKE.PublicKey, _ name: [UInt8], _ createdAt: UInt64) -> [UInt8] {
        var out: [UInt8] = [version]
        out += signingKey.bytes
        out += hpkeKey.bytes
        out.appendBigEndian(createdAt)
        out.append(UInt8(name.count))
        out += name
        return out
    }
}
