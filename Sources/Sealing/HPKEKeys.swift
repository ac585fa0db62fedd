import Basics
import CSodium
import Signing

extension HPKE {
    /// An X25519 public key (32 bytes). Hex form for logs and configuration.
    public struct PublicKey: Hashable, Sendable, CustomStringConvertible {
        /// The 32 raw bytes.
        public let bytes: [UInt8]

        /// Nil unless exactly 32 bytes.
        public init?(bytes: some Collection<UInt8>) {
            guard bytes.count == 32 else { return nil }
            self.bytes = Array(bytes)
        }

        public var description: String { hexString(bytes) }
    }

    /// An X25519 private key. The scalar is clamped by X25519 itself, so any 32 bytes are a key.
    public struct PrivateKey: Sendable {
        /// The 32-byte secret scalar (RFC 7748 encoding), as stored in key files.
        public let secret: SecretBytes
        /// The matching public key.
        public let publicKey: PublicKey

        /// Throws `SealingError.invalidKey` unless `secret` is 32 bytes.
        public init(secret: SecretBytes) throws {
            guard secret.count == 32 else { throw SealingError.invalidKey }
            var pk = [UInt8](repeating: 0, count: 32)
            let rc = secret.withUnsafeBytes { crypto_scalarmult_curve25519_base(&pk, u8($0)) }
            guard rc == 0 else { throw SealingError.invalidKey }
            self.secret = secret
            self.publicKey = PublicKey(bytes: pk)!
        }

        /// A fresh random key.
        public static func generate() -> PrivateKey {
            try! PrivateKey(secret: .random(count: 32))
        }

        /// DeriveKeyPair (RFC 9180 7.1.3) for DHKEM(X25519): deterministic, used for tests,
        /// vectors and the sender's ephemeral key when an `ikm` is given.
        package init(derivedFrom ikm: [UInt8]) {
            var prk = HPKELabels.kem.labeledExtract(salt: [], label: "dkp_prk", ikm: ikm)
            defer { wipe(&prk) }
            var sk = HPKELabels.kem.labeledExpand(prk: prk, label: "sk", info: [], length: 32)
            defer { wipe(&sk) }
            try! self.init(secret: SecretBytes(sk))
        }

        /// Writes the secret to `path`: mode 0600, atomic (see `SigningKey.save`).
        public func save(to path: String) throws {
            do { try KeyFile.write(secret, to: path) } catch let error as SigningError { throw SealingError.keyFile(error) }
        }

        /// Reads a key saved by `save(to:)`, with the same checks as `SigningKey.load`.
        public static func load(from path: String) throws -> PrivateKey {
            do { return try PrivateKey(secret: KeyFile.read(from: path, count: 32)) }
            catch let error as SigningError { throw SealingError.keyFile(error) }
        }

        /// X25519(self, peer). Refuses an all-zero result (RFC 9180 7.1.4: small-order peer key).
        func dh(_ peer: PublicKey) throws -> [UInt8] {
            var shared = [UInt8](repeating: 0, count: 32)
            // libsodium's crypto_scalarmult returns -1 itself for an all-zero output.
            let rc = secret.withUnsafeBytes { crypto_scalarmult_curve25519(&shared, u8($0), peer.bytes) }
            guard rc == 0, sodium_is_zero(shared, shared.count) == 0 else {
                wipe(&shared)
                throw SealingError.invalidKey
            }
            return shared
        }
    }
}
