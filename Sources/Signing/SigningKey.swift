import CSodium

/// An Ed25519 signing key (libsodium crypto_sign_*). Deterministic signatures (RFC 8032).
public final class SigningKey: Sendable {
    /// Ed25519 seeds are 32 bytes (crypto_sign_SEEDBYTES); the key file holds the seed.
    public static let seedByteCount = 32
    /// libsodium's secret key layout: seed (32) | public key (32).
    static let secretKeyByteCount = 64

    private let secretKey: SecretBytes
    /// The public half: how others name this device.
    public let publicKey: PublicKey

    /// A fresh random key.
    public static func generate() -> SigningKey {
        // A random seed of the right length cannot fail.
        try! SigningKey(seed: SecretBytes.random(count: seedByteCount))
    }

    /// The key derived from a 32-byte seed. Throws `SigningError.invalidSecretLength`.
    public init(seed: SecretBytes) throws {
        guard seed.count == SigningKey.seedByteCount else {
            throw SigningError.invalidSecretLength(expected: SigningKey.seedByteCount, actual: seed.count)
        }
        var pk = [UInt8](repeating: 0, count: PublicKey.byteCount)
        secretKey = SecretBytes(count: SigningKey.secretKeyByteCount) { sk in
            seed.withUnsafeBytes { s in _ = crypto_sign_seed_keypair(&pk, u8(sk), u8(s)) }
        }
        publicKey = PublicKey(bytes: pk)!
    }

    /// The 32-byte seed, the only secret needed to rebuild this key.
    public var seed: SecretBytes {
        secretKey.withUnsafeBytes { sk in SecretBytes(sk.prefix(SigningKey.seedByteCount)) }
    }

    /// A 64-byte Ed25519 signature of `message`.
    public func sign(_ message: some Collection<UInt8>) -> [UInt8] {
        var sig = [UInt8](repeating: 0, count: PublicKey.signatureByteCount)
        secretKey.withUnsafeBytes { sk in
            withBytes(message) { msg in
                _ = crypto_sign_detached(&sig, nil, u8(msg), UInt64(msg.count), u8(sk))
            }
        }
        return sig
    }

    /// Writes the seed to `path` with mode 0600, atomically (see `KeyFile.write`).
    public func save(to path: String) throws {
        try KeyFile.write(seed, to: path)
    }

    /// Reads a key saved by `save(to:)`; refuses a file group/other may access, or of wrong length.
    public static func load(from path: String) throws -> SigningKey {
        try SigningKey(seed: KeyFile.read(from: path, count: seedByteCount))
    }
}
