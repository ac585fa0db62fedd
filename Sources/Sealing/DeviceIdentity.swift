import Glibc
import Signing

/// A device's secret identity: an Ed25519 signing key, an X25519 HPKE key, and the signed
/// public record binding them. Stays on the device.
public final class DeviceIdentity: Sendable {
    public let signingKey: SigningKey
    public let hpkeKey: HPKE.PrivateKey
    /// What other devices need to know about this one.
    public let record: DeviceRecord

    /// File names inside the identity directory. The two keys are 0600; the record is public.
    public static let signingKeyFile = "signing.key"
    public static let hpkeKeyFile = "hpke.key"
    public static let recordFile = "device.record"

    /// Binds existing keys with a freshly signed record (deterministic: Ed25519 signatures are).
    public init(signingKey: SigningKey, hpkeKey: HPKE.PrivateKey, name: String, createdAt: UInt64) throws {
        self.signingKey = signingKey
        self.hpkeKey = hpkeKey
        self.record = try DeviceRecord(signingKey: signingKey, hpkeKey: hpkeKey.publicKey, name: name, createdAt: createdAt)
    }

    /// New random keys. `now` is milliseconds since the Unix epoch.
    public static func generate(name: String, now: UInt64) throws -> DeviceIdentity {
        try DeviceIdentity(signingKey: .generate(), hpkeKey: .generate(), name: name, createdAt: now)
    }

    /// Writes `signing.key` (Ed25519 seed, 32 bytes), `hpke.key` (X25519 secret, 32 bytes), both
    /// mode 0600, and `device.record` (the public record), each atomically. Creates `directory`
    /// with mode 0700 when it does not exist.
    public func save(to directory: String) throws {
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw SealingError.keyFile(.io(operation: "mkdir", path: directory, errno: errno))
        }
        do {
            try signingKey.save(to: directory + "/" + DeviceIdentity.signingKeyFile)
            try KeyFile.writePublic(record.encoded, to: directory + "/" + DeviceIdentity.recordFile)
        } catch let error as SigningError {
            throw SealingError.keyFile(error)
        }
        try hpkeKey.save(to: directory + "/" + DeviceIdentity.hpkeKeyFile)
    }

    /// Reads what `save(to:)` wrote; refuses key files others may access, wrong lengths, and a
    /// record that is not signed by the signing key or names another HPKE key (`invalidRecord`).
    public static func load(from directory: String) throws -> DeviceIdentity {
        let signingKey: SigningKey
        let recordBytes: [UInt8]
        do {
            signingKey = try SigningKey.load(from: directory + "/" + signingKeyFile)
            recordBytes = try KeyFile.readPublic(from: directory + "/" + recordFile, limit: 256)
        } catch let error as SigningError {
            throw SealingError.keyFile(error)
        }
        let hpkeKey = try HPKE.PrivateKey.load(from: directory + "/" + hpkeKeyFile)
        let record = try DeviceRecord(encoded: recordBytes)
        guard record.signingKey == signingKey.publicKey, record.hpkeKey == hpkeKey.publicKey else {
            throw SealingError.invalidRecord
        }
        return try DeviceIdentity(signingKey: signingKey, hpkeKey: hpkeKey, name: record.name, createdAt: record.createdAt)
    }
}
