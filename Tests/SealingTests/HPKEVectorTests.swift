import Basics
import Foundation
import TestKit
import Testing
@testable import Sealing
import Signing

/// protocol/vectors/hpke-rfc9180-x25519-sha256-chacha20poly1305.json (RFC 9180 Appendix A).
struct RFCVectorSet: Decodable {
    struct Vector: Decodable {
        let name: String
        let setup: [String: String]
        let encryptions: [[String: String]]
        let exports: [[String: String]]
    }
    let vectors: [Vector]

    static func load() throws -> RFCVectorSet {
        let url = packageRoot.appendingPathComponent("protocol/vectors/hpke-rfc9180-x25519-sha256-chacha20poly1305.json")
        return try JSONDecoder().decode(RFCVectorSet.self, from: Data(contentsOf: url))
    }
}

@Test(arguments: [HPKE.Mode.base, .psk, .auth, .authPSK])
func rfc9180Vectors(mode: HPKE.Mode) throws {
    let set = try RFCVectorSet.load()
    let matching = set.vectors.filter { $0.setup["mode"] == String(mode.rawValue) }
    try #require(matching.count == 1)
    let v = matching[0]
    let s = v.setup.mapValues { bytes(fromHex: $0) ?? [] }
    let recipient = HPKE.PrivateKey(derivedFrom: s["ikmR"]!)
    #expect(secretBytes(recipient.secret) == s["skRm"]!)
    #expect(recipient.publicKey.bytes == s["pkRm"]!)
    #expect(HPKE.PrivateKey(derivedFrom: s["ikmE"]!).publicKey.bytes == s["pkEm"]!)
    let senderKey = s["ikmS"].map { HPKE.PrivateKey(derivedFrom: $0) }
    if let senderKey { #expect(senderKey.publicKey.bytes == s["pkSm"]!) }
    let psk = try s["psk"].map { try HPKE.PSK(key: SecretBytes($0), id: s["psk_id"]!) }

    let sender = try HPKE.Sender(recipientKey: recipient.publicKey, info: s["info"]!, psk: psk,
                                 senderKey: senderKey, ikmE: s["ikmE"]!)
    #expect(sender.mode == mode)
    #expect(sender.encapsulatedKey == s["enc"]!)
    #expect(secretBytes(sender.schedule.key) == s["key"]!)
    #expect(sender.schedule.baseNonce == s["base_nonce"]!)
    #expect(secretBytes(sender.schedule.exporterSecret) == s["exporter_secret"]!)
    let receiver = try HPKE.Recipient(encapsulatedKey: s["enc"]!, recipientKey: recipient, info: s["info"]!,
                                      psk: psk, senderKey: senderKey?.publicKey)
    #expect(secretBytes(receiver.schedule.key) == s["key"]!)

    try #require(v.encryptions.count == 6)
    for e in v.encryptions {
        let seq = UInt64(e["sequence_number"]!)!
        sender.schedule.sequence = seq
        receiver.schedule.sequence = seq
        #expect(try sender.schedule.currentNonce() == unhex(e["nonce"]!))
        #expect(try sender.seal(unhex(e["pt"]!), aad: unhex(e["aad"]!)) == unhex(e["ct"]!), "seq \(seq)")
        #expect(try receiver.open(unhex(e["ct"]!), aad: unhex(e["aad"]!)) == unhex(e["pt"]!), "seq \(seq)")
        #expect(sender.schedule.sequence == seq + 1)
    }
    try #require(v.exports.count == 3)
    for x in v.exports {
        let expected = SecretBytes(unhex(x["exported_value"]!))
        let context = unhex(x["exporter_context"]!)
        #expect(try sender.export(context: context, length: Int(x["L"]!)!) == expected)
        #expect(try receiver.export(context: context, length: Int(x["L"]!)!) == expected)
    }
}
