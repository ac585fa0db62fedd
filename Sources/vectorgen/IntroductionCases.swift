// Generators for the `introduction` vectors: first contact, HPKE base + the sender's own record.
import Basics
import Sealing
import Signing

func introductionCases() throws -> [VectorCase] {
    let alice = try identity(4, "alice laptop"), bob = try identity(2, "bob homebase"), carol = try identity(3, "carol")
    let now: UInt64 = 1_750_000_000_000
    let body = Array("join: a proof, a record, a name".utf8)
    let id = MessageID(bytes: fixed(30, count: 16))!
    let good = try Introduction.seal(body, from: alice, toSigningKey: bob.record.signingKey, hpkeKey: bob.record.hpkeKey,
                                     now: now, messageID: id, ikmE: fixed(31))
    let toCarol = try Introduction.seal(body, from: alice, toSigningKey: carol.record.signingKey,
                                        hpkeKey: carol.record.hpkeKey, now: now, messageID: id, ikmE: fixed(31))
    var tampered = good; tampered[60] ^= 0x01
    let recipient = secrets("recipient", bob)
    func opening(_ relaySender: DeviceIdentity) -> [(String, String)] {
        [("relay_sender", hexString(relaySender.record.signingKey.bytes))] + recipient + [("now", u64(now + 2_000))]
    }
    func failure(_ name: String, _ comment: String, _ payload: [UInt8], from: DeviceIdentity? = nil) -> VectorCase {
        VectorCase(name: "introduction-" + name, kind: "introduction", expect: "open failure", comment: comment,
                   fields: opening(from ?? alice), payload: payload)
    }
    return [
        VectorCase(name: "introduction-success", kind: "introduction", expect: "success",
                   comment: "alice, unknown to bob, introduces herself (HPKE base to bob's key, her record and signature inside)",
                   fields: opening(alice) + secrets("sender", alice)
                       + [("ikm_e", hexString(fixed(31))), ("message_id", hexString(id.bytes)), ("timestamp", u64(now)), ("body", hexString(body))],
                   payload: good),
        failure("tampered", "one ciphertext byte flipped", tampered),
        failure("wrong-recipient", "sealed to carol's keys, opened by bob", toCarol),
        failure("wrong-sender", "authentic, but the relay reported carol as the sender (the record is alice's)", good, from: carol),
        VectorCase(name: "introduction-replayed", kind: "introduction", expect: "replay",
                   comment: "the same introduction opened twice: the second open is a replay", fields: opening(alice), payload: good),
    ]
}
