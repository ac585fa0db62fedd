import Signing

/// HPKE (RFC 9180) for one suite only: DHKEM(X25519, HKDF-SHA256), HKDF-SHA256,
/// ChaCha20-Poly1305; all four modes. Built on libsodium primitives.
///
/// The mode follows from the arguments: a `PSK` adds psk, a sender key adds auth.
public enum HPKE {
    /// RFC 9180 section 5: mode identifiers.
    public enum Mode: UInt8, Sendable {
        case base = 0x00
        case psk = 0x01
        case auth = 0x02
        case authPSK = 0x03

        init(psk: Bool, auth: Bool) {
            switch (psk, auth) {
            case (false, false): self = .base
            case (true, false): self = .psk
            case (false, true): self = .auth
            case (true, true): self = .authPSK
            }
        }
    }

    /// KEM 0x0020 DHKEM(X25519, HKDF-SHA256).
    static let kemID: UInt16 = 0x0020
    /// KDF 0x0001 HKDF-SHA256.
    static let kdfID: UInt16 = 0x0001
    /// AEAD 0x0003 ChaCha20Poly1305.
    static let aeadID: UInt16 = 0x0003

    /// Nenc = Npk = Nsk = Nsecret = 32 for DHKEM(X25519).
    public static let encapsulatedKeyByteCount = 32
    /// Nk: the AEAD key length.
    static let keyLength = 32
    /// Nn: the AEAD nonce length.
    static let nonceLength = 12
    /// Nt: the AEAD tag length, added to every ciphertext.
    public static let tagByteCount = 16
    /// Exports are limited to 255 * Nh bytes (HKDF-Expand's limit).
    public static let maxExportLength = 255 * HKDF.hashLength

    /// A pre-shared key and its identifier (psk modes). RFC 9180 5.1.2: the psk MUST carry
    /// at least 32 bytes of entropy; both parts are required (never one without the other).
    public struct PSK: Sendable {
        let key: SecretBytes
        let id: [UInt8]

        /// Throws `SealingError.invalidPSK` for a key under 32 bytes or an empty id.
        public init(key: SecretBytes, id: some Collection<UInt8>) throws {
            guard key.count >= 32, !id.isEmpty else { throw SealingError.invalidPSK }
            self.key = key
            self.id = Array(id)
        }
    }

    /// Single-shot seal (RFC 9180 6.1): a fresh context, one message.
    public static func seal(
        _ plaintext: some Collection<UInt8>, aad: some Collection<UInt8> = [UInt8](),
        to recipient: PublicKey, info: some Collection<UInt8>,
        psk: PSK? = nil, senderKey: PrivateKey? = nil
    ) throws -> (encapsulatedKey: [UInt8], ciphertext: [UInt8]) {
        let context = try Sender(recipientKey: recipient, info: info, psk: psk, senderKey: senderKey)
        return (context.encapsulatedKey, try context.seal(plaintext, aad: aad))
    }

    /// Single-shot open (RFC 9180 6.1). Throws `SealingError.openFailed` on any tampering.
    public static func open(
        _ ciphertext: some Collection<UInt8>, aad: some Collection<UInt8> = [UInt8](),
        encapsulatedKey: some Collection<UInt8>, recipientKey: PrivateKey,
        info: some Collection<UInt8>, psk: PSK? = nil, senderKey: PublicKey? = nil
    ) throws -> [UInt8] {
        let context = try Recipient(encapsulatedKey: encapsulatedKey, recipientKey: recipientKey,
                                    info: info, psk: psk, senderKey: senderKey)
        return try context.open(ciphertext, aad: aad)
    }
}
