import Basics
import Signing

/// DHKEM(X25519, HKDF-SHA256), RFC 9180 section 4.1. Encap/AuthEncap take an optional
/// `ikmE` so that tests and vectors can fix the ephemeral key (DeriveKeyPair(ikmE)).
enum DHKEM {
    struct Encapsulation {
        var sharedSecret: [UInt8]
        let enc: [UInt8]
    }

    /// Encap(pkR) or, given `senderKey`, AuthEncap(pkR, skS).
    static func encapsulate(to recipient: HPKE.PublicKey, senderKey: HPKE.PrivateKey?, ikmE: [UInt8]?) throws -> Encapsulation {
        let ephemeral = ikmE.map { HPKE.PrivateKey(derivedFrom: $0) } ?? .generate()
        let enc = ephemeral.publicKey.bytes
        var dh = try ephemeral.dh(recipient)
        var kemContext = enc + recipient.bytes
        if let senderKey {
            dh += try senderKey.dh(recipient)
            kemContext += senderKey.publicKey.bytes
        }
        defer { wipe(&dh) }
        return Encapsulation(sharedSecret: extractAndExpand(dh: dh, kemContext: kemContext), enc: enc)
    }

    /// Decap(enc, skR) or, given `senderKey`, AuthDecap(enc, skR, pkS).
    static func decapsulate(enc: [UInt8], recipientKey: HPKE.PrivateKey, senderKey: HPKE.PublicKey?) throws -> [UInt8] {
        guard let pkE = HPKE.PublicKey(bytes: enc) else { throw SealingError.invalidKey }
        var dh = try recipientKey.dh(pkE)
        var kemContext = enc + recipientKey.publicKey.bytes
        if let senderKey {
            dh += try recipientKey.dh(senderKey)
            kemContext += senderKey.bytes
        }
        defer { wipe(&dh) }
        return extractAndExpand(dh: dh, kemContext: kemContext)
    }

    /// eae_prk = LabeledExtract("", "eae_prk", dh)
    /// shared_secret = LabeledExpand(eae_prk, "shared_secret", kem_context, 32)
    private static func extractAndExpand(dh: [UInt8], kemContext: [UInt8]) -> [UInt8] {
        var prk = HPKELabels.kem.labeledExtract(salt: [], label: "eae_prk", ikm: dh)
        defer { wipe(&prk) }
        return HPKELabels.kem.labeledExpand(prk: prk, label: "shared_secret", info: kemContext, length: 32)
    }
}
