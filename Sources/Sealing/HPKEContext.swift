import Basics
import Signing

extension HPKE {
    /// A sender's encryption context (RFC 9180 5.2). A class, not a struct: a copy would reuse
    /// sequence numbers and so nonces. Not thread-safe; use from one task at a time.
    public final class Sender {
        /// `enc`: send it to the recipient with the first ciphertext.
        public let encapsulatedKey: [UInt8]
        /// The mode the arguments selected.
        public let mode: Mode
        let schedule: HPKEKeySchedule

        /// SetupBaseS / SetupPSKS / SetupAuthS / SetupAuthPSKS, chosen by `psk` and `senderKey`.
        public convenience init(recipientKey: PublicKey, info: some Collection<UInt8>, psk: PSK? = nil, senderKey: PrivateKey? = nil) throws {
            try self.init(recipientKey: recipientKey, info: info, psk: psk, senderKey: senderKey, ikmE: nil)
        }

        /// The same with a deterministic ephemeral key DeriveKeyPair(ikmE): for tests and vectors
        /// only; a real sender must never reuse an ephemeral key.
        package init(recipientKey: PublicKey, info: some Collection<UInt8>, psk: PSK?, senderKey: PrivateKey?, ikmE: [UInt8]?) throws {
            mode = Mode(psk: psk != nil, auth: senderKey != nil)
            var encap = try DHKEM.encapsulate(to: recipientKey, senderKey: senderKey, ikmE: ikmE)
            defer { wipe(&encap.sharedSecret) }
            encapsulatedKey = encap.enc
            var pskBytes = psk?.key.withUnsafeBytes { Array($0) } ?? []
            defer { wipe(&pskBytes) }
            schedule = try HPKEKeySchedule(mode: mode, sharedSecret: encap.sharedSecret, info: Array(info),
                                           psk: pskBytes, pskID: psk?.id ?? [])
        }

        /// Seals one message; the sequence number advances only on success.
        public func seal(_ plaintext: some Collection<UInt8>, aad: some Collection<UInt8> = [UInt8]()) throws -> [UInt8] {
            let nonce = try schedule.currentNonce()
            let ciphertext = AEAD.seal(key: schedule.key, nonce: nonce, plaintext: plaintext, aad: aad)
            schedule.sequence += 1
            return ciphertext
        }

        /// Export(exporter_context, L): a secret both sides derive; L at most 8160.
        public func export(context: some Collection<UInt8>, length: Int) throws -> SecretBytes {
            try schedule.export(context: Array(context), length: length)
        }
    }

    /// A recipient's decryption context (RFC 9180 5.2). Same caveats as `Sender`.
    public final class Recipient {
        /// The mode the arguments selected.
        public let mode: Mode
        let schedule: HPKEKeySchedule

        /// SetupBaseR / SetupPSKR / SetupAuthR / SetupAuthPSKR, chosen by `psk` and `senderKey`.
        /// Throws `invalidKey` for a malformed or small-order `encapsulatedKey`.
        public init(encapsulatedKey: some Collection<UInt8>, recipientKey: PrivateKey, info: some Collection<UInt8>,
                    psk: PSK? = nil, senderKey: PublicKey? = nil) throws {
            mode = Mode(psk: psk != nil, auth: senderKey != nil)
            var shared = try DHKEM.decapsulate(enc: Array(encapsulatedKey), recipientKey: recipientKey, senderKey: senderKey)
            defer { wipe(&shared) }
            var pskBytes = psk?.key.withUnsafeBytes { Array($0) } ?? []
            defer { wipe(&pskBytes) }
            schedule = try HPKEKeySchedule(mode: mode, sharedSecret: shared, info: Array(info),
                                           psk: pskBytes, pskID: psk?.id ?? [])
        }

        /// Opens one message: `openFailed` on any tampering; the sequence number advances only on success.
        public func open(_ ciphertext: some Collection<UInt8>, aad: some Collection<UInt8> = [UInt8]()) throws -> [UInt8] {
            let nonce = try schedule.currentNonce()
            guard let plaintext = AEAD.open(key: schedule.key, nonce: nonce, ciphertext: ciphertext, aad: aad) else {
                throw SealingError.openFailed
            }
            schedule.sequence += 1
            return plaintext
        }

        /// Export(exporter_context, L): the same secret the sender derives.
        public func export(context: some Collection<UInt8>, length: Int) throws -> SecretBytes {
            try schedule.export(context: Array(context), length: length)
        }
    }
}
