import Basics
import Signing

/// The key schedule (RFC 9180 5.1) and the AEAD state a context keeps: key, base nonce,
/// exporter secret and sequence number.
final class HPKEKeySchedule {
    let key: SecretBytes
    let baseNonce: [UInt8]
    let exporterSecret: SecretBytes
    /// Next sequence number; nonce = base_nonce XOR I2OSP(seq, 12).
    var sequence: UInt64 = 0

    /// VerifyPSKInputs (RFC 9180 5.1): psk and psk_id both or neither; present exactly in the
    /// psk modes.
    static func verifyPSKInputs(mode: HPKE.Mode, psk: [UInt8], pskID: [UInt8]) throws {
        let gotPSK = !psk.isEmpty
        guard gotPSK == !pskID.isEmpty else { throw SealingError.invalidPSK }
        switch mode {
        case .base, .auth: guard !gotPSK else { throw SealingError.invalidPSK }
        case .psk, .authPSK: guard gotPSK else { throw SealingError.invalidPSK }
        }
    }

    /// psk_id_hash = LabeledExtract("", "psk_id_hash", psk_id)
    /// info_hash = LabeledExtract("", "info_hash", info)
    /// key_schedule_context = mode || psk_id_hash || info_hash
    /// secret = LabeledExtract(shared_secret, "secret", psk)
    /// key = LabeledExpand(secret, "key", key_schedule_context, Nk)
    /// base_nonce = LabeledExpand(secret, "base_nonce", key_schedule_context, Nn)
    /// exporter_secret = LabeledExpand(secret, "exp", key_schedule_context, Nh)
    init(mode: HPKE.Mode, sharedSecret: [UInt8], info: [UInt8], psk: [UInt8], pskID: [UInt8]) throws {
        try HPKEKeySchedule.verifyPSKInputs(mode: mode, psk: psk, pskID: pskID)
        let labels = HPKELabels.hpke
        let pskIDHash = labels.labeledExtract(salt: [], label: "psk_id_hash", ikm: pskID)
        let infoHash = labels.labeledExtract(salt: [], label: "info_hash", ikm: info)
        let context = [mode.rawValue] + pskIDHash + infoHash
        var secret = labels.labeledExtract(salt: sharedSecret, label: "secret", ikm: psk)
        defer { wipe(&secret) }
        var key = labels.labeledExpand(prk: secret, label: "key", info: context, length: HPKE.keyLength)
        var exporter = labels.labeledExpand(prk: secret, label: "exp", info: context, length: HKDF.hashLength)
        defer { wipe(&key); wipe(&exporter) }
        self.key = SecretBytes(key)
        self.baseNonce = labels.labeledExpand(prk: secret, label: "base_nonce", info: context, length: HPKE.nonceLength)
        self.exporterSecret = SecretBytes(exporter)
    }

    /// The nonce for the current sequence number. Refuses the last value so seq never wraps
    /// (RFC 9180 5.2 MessageLimitReachedError; UInt64 is below the RFC's 2^96 - 1 bound).
    func currentNonce() throws -> [UInt8] {
        guard sequence < UInt64.max else { throw SealingError.messageLimitReached }
        return counterNonce(base: baseNonce, counter: sequence)
    }

    /// Export(exporter_context, L) = LabeledExpand(exporter_secret, "sec", exporter_context, L)
    func export(context: [UInt8], length: Int) throws -> SecretBytes {
        guard length <= HPKE.maxExportLength else { throw SealingError.exportTooLong }
        var out = exporterSecret.withUnsafeBytes { secret in
            HPKELabels.hpke.labeledExpand(prk: Array(secret), label: "sec", info: context, length: length)
        }
        defer { wipe(&out) }
        return SecretBytes(out)
    }
}
