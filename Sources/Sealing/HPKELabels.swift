import Basics
import Signing

/// LabeledExtract / LabeledExpand (RFC 9180 section 4) for one suite_id.
struct HPKELabels {
    /// The suite_id bytes prefixed (after "HPKE-v1") to every label.
    let suiteID: [UInt8]

    /// suite_id = "KEM" || I2OSP(kem_id, 2), for the DHKEM's own derivations.
    static let kem = HPKELabels(suiteID: Array("KEM".utf8) + be16(HPKE.kemID))
    /// suite_id = "HPKE" || I2OSP(kem_id, 2) || I2OSP(kdf_id, 2) || I2OSP(aead_id, 2).
    static let hpke = HPKELabels(suiteID: Array("HPKE".utf8) + be16(HPKE.kemID) + be16(HPKE.kdfID) + be16(HPKE.aeadID))

    static let version = Array("HPKE-v1".utf8)

    /// Extract(salt, "HPKE-v1" || suite_id || label || ikm)
    func labeledExtract(salt: [UInt8], label: String, ikm: [UInt8]) -> [UInt8] {
        var labeled = HPKELabels.version + suiteID + Array(label.utf8) + ikm
        defer { wipe(&labeled) }
        return HKDF.extract(salt: salt, ikm: labeled)
    }

    /// Expand(prk, I2OSP(L, 2) || "HPKE-v1" || suite_id || label || info, L)
    func labeledExpand(prk: [UInt8], label: String, info: [UInt8], length: Int) -> [UInt8] {
        let labeled = be16(UInt16(length)) + HPKELabels.version + suiteID + Array(label.utf8) + info
        return HKDF.expand(prk: prk, info: labeled, length: length)
    }
}

/// I2OSP(value, 2).
func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xff)] }
