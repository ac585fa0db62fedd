// Generators for the Sealing vectors (HPKE, envelopes, streamed replies, device records).
// Deterministic: fixed seeds, fixed message ids, and a fixed HPKE ephemeral key (ikmE).
// Kinds and fields are specified in protocol/spec-sealing.md, section "Test vectors".
import Basics
import Foundation
import Sealing
import Signing

func sealingVectorCases() throws -> [VectorCase] {
    return try hpkeCases() + envelopeCases() + introductionCases() + streamCases() + identityCases()
}

/// 32 fixed bytes that differ per `tag`.
func fixed(_ tag: UInt8, count: Int = 32) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: Int(tag) &* 37 &+ $0 &* 11) }
}

func u64(_ v: UInt64) -> String { hexString((0..<8).map { UInt8(truncatingIfNeeded: v >> (56 - 8 * UInt64($0))) }) }

func identity(_ tag: UInt8, _ name: String) throws -> DeviceIdentity {
    try DeviceIdentity(signingKey: SigningKey(seed: SecretBytes(fixed(tag))),
                       hpkeKey: HPKE.PrivateKey(secret: SecretBytes(fixed(tag &+ 100))), name: name, createdAt: 1_700_000_000_000)
}

func secrets(_ prefix: String, _ d: DeviceIdentity) -> [(String, String)] {
    [(prefix + "_seed", hexString(d.signingKey.seed.withUnsafeBytes { Array($0) })),
     (prefix + "_hpke_secret", hexString(d.hpkeKey.secret.withUnsafeBytes { Array($0) })),
     (prefix + "_record", hexString(d.record.encoded))]
}

// MARK: hpke-rfc9180: one file per mode, from the RFC's own vectors (the json beside them).

private func hpkeCases() throws -> [VectorCase] {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("protocol/vectors/hpke-rfc9180-x25519-sha256-chacha20poly1305.json")
    let root = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
    let names = ["0": "base", "1": "psk", "2": "auth", "3": "authpsk"]
    return (root["vectors"] as! [[String: Any]]).map { v in
        let setup = v["setup"] as! [String: String]
        let encryptions = v["encryptions"] as! [[String: String]]
        let exports = v["exports"] as! [[String: String]]
        let last = encryptions.last!, export = exports.last!
        var fields: [(String, String)] = [("mode", hexString([UInt8(setup["mode"]!)!]))]
        for key in ["info", "ikmE", "pkEm", "ikmR", "pkRm", "ikmS", "pkSm", "psk", "psk_id", "enc",
                    "shared_secret", "key", "base_nonce", "exporter_secret"] {
            if let value = setup[key] { fields.append((key, value)) }
        }
        fields += [("sequence_number", u64(UInt64(last["sequence_number"]!)!)), ("pt", last["pt"]!),
                   ("aad", last["aad"]!), ("nonce", last["nonce"]!), ("ct", last["ct"]!),
                   ("exporter_context", export["exporter_context"]!), ("exported_value", export["exported_value"]!)]
        let mode = names[setup["mode"]!]!
        return VectorCase(name: "hpke-rfc9180-\(mode)", kind: "hpke-rfc9180", expect: "success",
                          comment: "RFC 9180 A.1 \(mode) mode (the checker also runs every encryption and export of this mode in the json)",
                          fields: fields)
    }
}

// MARK: envelope

private func envelopeCases() throws -> [VectorCase] {
    let alice = try identity(1, "alice laptop"), bob = try identity(2, "bob homebase"), carol = try identity(3, "carol")
    let now: UInt64 = 1_750_000_000_000
    let body = Array("{\"model\":\"llama3\",\"prompt\":\"hi\"}".utf8)
    func seal(_ body: [UInt8], from: DeviceIdentity, to: DeviceRecord, id: UInt8) throws -> SealedMessage {
        try Envelope.seal(body: body, from: from, to: to, now: now, messageID: MessageID(bytes: fixed(id, count: 16))!, ikmE: fixed(id &+ 50))
    }
    let good = try seal(body, from: alice, to: bob.record, id: 10)
    let empty = try seal([], from: alice, to: bob.record, id: 11)
    let body512 = (0..<197).map { UInt8(truncatingIfNeeded: $0) }  // 60 + 197 > 256: the first body of bucket 512
    let sealed512 = try seal(body512, from: alice, to: bob.record, id: 13)
    let toCarol = try seal(body, from: alice, to: carol.record, id: 12)
    // Request shaping: the same short body in the 2048 bucket (envelope 2,097 bytes), not 256.
    let padded = try Envelope.seal(body: body, from: alice, to: bob.record, now: now,
                                   messageID: MessageID(bytes: fixed(14, count: 16))!, ikmE: fixed(14 &+ 50), bucket: 2048)
    let fromBob = secrets("recipient", bob)
    func success(_ s: SealedMessage, _ body: [UInt8], id: UInt8) -> [(String, String)] {
        secrets("sender", alice) + fromBob + [
            ("ikm_e", hexString(fixed(id &+ 50))), ("message_id", hexString(s.messageID.bytes)), ("timestamp", u64(now)),
            ("now", u64(now + 2_000)), ("body", hexString(body)), ("stream_secret", hexString(s.streamSecret.withUnsafeBytes { Array($0) }))]
    }
    let opening = [("sender_record", hexString(alice.record.encoded))] + fromBob + [("now", u64(now + 2_000))]
    var badTag = good.bytes; badTag[badTag.count - 1] ^= 0x01
    var badVersion = good.bytes; badVersion[0] = 2
    func failure(_ name: String, _ comment: String, _ payload: [UInt8], fields: [(String, String)]? = nil) -> VectorCase {
        VectorCase(name: "envelope-" + name, kind: "envelope", expect: "open failure", comment: comment,
                   fields: fields ?? opening, payload: payload)
    }
    return [
        VectorCase(name: "envelope-success", kind: "envelope", expect: "success",
                   comment: "alice seals a request to bob (HPKE auth); opening yields body, id, timestamp, stream secret",
                   fields: success(good, body, id: 10), payload: good.bytes),
        VectorCase(name: "envelope-empty-body", kind: "envelope", expect: "success",
                   comment: "an envelope with an empty body is valid", fields: success(empty, [], id: 11), payload: empty.bytes),
        VectorCase(name: "envelope-bucket-512", kind: "envelope", expect: "success",
                   comment: "a 197-byte body: 60 + 197 exceeds 256, so the plaintext pads to 512 (envelope 561 bytes)",
                   fields: success(sealed512, body512, id: 13), payload: sealed512.bytes),
        VectorCase(name: "envelope-padded-bucket", kind: "envelope", expect: "success",
                   comment: "a short body sealed in the 2048 bucket (request shaping): receivers accept any bucket that holds the body",
                   fields: success(padded, body, id: 14), payload: padded.bytes),
        failure("bad-tag", "last byte of the AEAD tag flipped", badTag),
        failure("bad-version", "version byte 2 (only 1 exists)", badVersion),
        failure("truncated", "envelope cut one byte short", Array(good.bytes.dropLast())),
        failure("wrong-recipient", "sealed to carol, opened by bob", toCarol.bytes),
        failure("wrong-sender", "sealed by alice, opened as if from carol (the relay reported carol)", good.bytes,
                fields: [("sender_record", hexString(carol.record.encoded))] + fromBob + [("now", u64(now + 2_000))]),
        failure("nonzero-padding", "authentic (alice to bob), but the last padding byte is 0x01",
                try handSealed(alice, bob, length: 3, body: [1, 2, 3], size: 256, dirtyLast: true)),
        failure("length-beyond-bucket", "authentic, but the body length says 197 in a 256-byte plaintext",
                try handSealed(alice, bob, length: 197, body: [], size: 256)),
        failure("off-bucket", "authentic and zero-padded, but the plaintext is 300 bytes (no bucket)",
                try handSealed(alice, bob, length: 3, body: [1, 2, 3], size: 300)),
        VectorCase(name: "envelope-replayed", kind: "envelope", expect: "replay",
                   comment: "the same envelope opened twice: the second open is a replay", fields: opening, payload: good.bytes),
        VectorCase(name: "envelope-too-old", kind: "envelope", expect: "replay",
                   comment: "timestamp older than a 60 s replay window at now",
                   fields: [("sender_record", hexString(alice.record.encoded))] + fromBob
                       + [("now", u64(now + 60_001)), ("window", u64(60_000))], payload: good.bytes),
    ]
}

/// An envelope sealed by hand around a plaintext that breaks the padding rules: HPKE opens it,
/// so only the receiver's padding checks can refuse it.
private func handSealed(_ from: DeviceIdentity, _ to: DeviceIdentity, length: UInt32, body: [UInt8], size: Int,
                        dirtyLast: Bool = false) throws -> [UInt8] {
    let info = Array("homebase envelope v1".utf8) + from.record.signingKey.bytes + to.record.signingKey.bytes
    let context = try HPKE.Sender(recipientKey: to.record.hpkeKey, info: info, psk: nil, senderKey: from.hpkeKey, ikmE: fixed(90))
    var plaintext = from.record.signingKey.bytes + fixed(20, count: 16)
    plaintext += (0..<8).map { UInt8(truncatingIfNeeded: UInt64(1_750_000_000_000) >> (56 - 8 * UInt64($0))) }
    plaintext += (0..<4).map { UInt8(truncatingIfNeeded: length >> (24 - 8 * UInt32($0))) }
    plaintext += body
    plaintext += [UInt8](repeating: 0, count: size - plaintext.count)
    if dirtyLast { plaintext[size - 1] = 1 }
    return [1] + context.encapsulatedKey + (try context.seal(plaintext, aad: [1]))
}

// MARK: stream

private func streamCases() throws -> [VectorCase] {
    let secret = fixed(200)
    let sealer = try StreamSealer(secret: SecretBytes(secret))
    let texts = ["Hello", ", ", String(repeating: "world ", count: 30), "!"]
    let chunks = try texts.enumerated().map { try sealer.seal(Array($1.utf8), final: $0 == texts.count - 1) }
    let extra = try StreamSealer(secret: SecretBytes(secret))
    for _ in 0..<4 { _ = try extra.seal([]) }
    let afterFinal = try extra.seal(Array("more".utf8))
    var badTag = chunks[1]; badTag[badTag.count - 1] ^= 0x01
    func framed(_ list: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        for c in list {
            let n = UInt32(c.count)
            out += [UInt8(n >> 24), UInt8(truncatingIfNeeded: n >> 16), UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n)]
            out += c
        }
        return out
    }
    func text(_ indices: [Int]) -> String { hexString(indices.flatMap { Array(texts[$0].utf8) }) }
    let keys = try StreamKeys(secret: SecretBytes(secret))
    let derived = [("key", hexString(keys.key.withUnsafeBytes { Array($0) })), ("base_nonce", hexString(keys.baseNonce))]
    func stream(_ name: String, _ expect: String, _ comment: String, _ delivered: [Int], _ list: [[UInt8]]) -> VectorCase {
        VectorCase(name: "stream-" + name, kind: "stream", expect: expect, comment: comment,
                   fields: [("secret", hexString(secret))] + derived + [("plaintext", text(delivered))], payload: framed(list))
    }
    return [
        stream("success", "success", "four chunks (buckets 64, 64, 256, 64), the last one final", [0, 1, 2, 3], chunks),
        stream("reordered", "reordered", "chunks 0, 2, 1: chunk 2 is a gap (dropped), chunk 1 then arrives late", [0],
               [chunks[0], chunks[2], chunks[1]]),
        stream("duplicate", "duplicate", "chunk 1 delivered twice", [0, 1], [chunks[0], chunks[1], chunks[1]]),
        stream("dropped", "dropped", "chunk 1 never arrives; chunk 2 shows the gap", [0], [chunks[0], chunks[2]]),
        stream("truncated", "truncated", "no final chunk before the stream ends", [0, 1, 2], Array(chunks.prefix(3))),
        stream("bad-tag", "open failure", "chunk 1 with its last tag byte flipped", [0], [chunks[0], badTag]),
        stream("after-final", "after final", "a chunk with counter 4 after the final chunk 3", [0, 1, 2, 3], chunks + [afterFinal]),
    ]
}

// MARK: identity-record

private func identityCases() throws -> [VectorCase] {
    let d = try identity(7, "workstation")
    let other = try identity(8, "workstation")
    let fields = [("signing_seed", hexString(fixed(7))), ("hpke_secret", hexString(fixed(107)))]
    var badSignature = d.record.encoded; badSignature[badSignature.count - 10] ^= 0x01
    var swapped = d.record.encoded; swapped.replaceSubrange(33..<65, with: other.hpkeKey.publicKey.bytes)
    return [
        VectorCase(name: "identity-record-valid", kind: "identity-record", expect: "success",
                   comment: "a device record named 'workstation', created 1700000000000 ms", fields: fields, payload: d.record.encoded),
        VectorCase(name: "identity-record-forged-signature", kind: "identity-record", expect: "decode failure",
                   comment: "one bit of the signature flipped", payload: badSignature),
        VectorCase(name: "identity-record-swapped-hpke-key", kind: "identity-record", expect: "decode failure",
                   comment: "another device's HPKE key under this signing key and signature", payload: swapped),
    ]
}
