// Checkers for the Sealing vector kinds (fields in protocol/spec-sealing.md, "Test vectors").
import Basics
import Foundation
@testable import Sealing
import Signing

let sealingCheckers: [String: VectorChecker] = [
    "hpke-rfc9180": checkHPKE,
    "envelope": checkEnvelope,
    "introduction": checkIntroduction,
    "stream": checkStream,
    "identity-record": checkIdentityRecord,
]

struct SealingMismatch: Error, CustomStringConvertible { let description: String }

func check(_ condition: Bool, _ what: @autoclosure () -> String) throws {
    guard condition else { throw SealingMismatch(description: what()) }
}

/// The identity of the vector's `<prefix>_seed` and `<prefix>_hpke_secret`, named and dated by
/// `<prefix>_record`, which must be its record.
func identity(_ v: VectorFile, _ prefix: String) throws -> DeviceIdentity {
    let record = try DeviceRecord(encoded: v.hexField(prefix + "_record"))
    let d = try DeviceIdentity(signingKey: SigningKey(seed: SecretBytes(v.hexField(prefix + "_seed"))),
                               hpkeKey: HPKE.PrivateKey(secret: SecretBytes(v.hexField(prefix + "_hpke_secret"))),
                               name: record.name, createdAt: record.createdAt)
    try check(d.record == record, "\(prefix)_record does not match its keys")
    return d
}

/// The refusals a sealed kind's vectors name besides "success": "open failure" (opening must
/// fail) and "replay" (opening the same bytes a second time must be refused). Any other
/// `expect` is not `kind`'s.
func checkRefusal<T>(_ expect: String, kind: String, _ replay: inout ReplayGuard,
                     _ open: (inout ReplayGuard) throws -> T) throws {
    switch expect {
    case "open failure":
        do { _ = try open(&replay) } catch SealingError.openFailed { return }
        throw SealingMismatch(description: "expected open failure")
    case "replay":
        // Open once; if that succeeds, open the same bytes again. The last open must be a replay.
        do { _ = try open(&replay); _ = try open(&replay) } catch SealingError.replayed { return }
        throw SealingMismatch(description: "expected replay")
    default:
        throw SealingMismatch(description: "\(kind) does not know expect \(expect)")
    }
}

func raw(_ s: SecretBytes) -> [UInt8] { s.withUnsafeBytes { Array($0) } }

func u64(_ bytes: [UInt8]) throws -> UInt64 {
    try check(bytes.count == 8, "a time or counter field is 8 bytes")
    return bytes.reduce(0) { $0 << 8 | UInt64($1) }
}

// MARK: hpke-rfc9180

@Sendable private func checkHPKE(_ v: VectorFile) throws {
    try v.requireOnly(["mode", "info", "ikmE", "pkEm", "ikmR", "pkRm", "ikmS", "pkSm", "psk", "psk_id", "enc",
                       "shared_secret", "key", "base_nonce", "exporter_secret", "sequence_number", "pt", "aad",
                       "nonce", "ct", "exporter_context", "exported_value"])
    try check(v.expect == "success", "hpke-rfc9180 knows only success")
    let f: (String) throws -> [UInt8] = { try v.hexField($0) }
    let mode = try HPKE.Mode(rawValue: f("mode").first ?? 0xff)
    let recipient = HPKE.PrivateKey(derivedFrom: try f("ikmR"))
    try check(recipient.publicKey.bytes == f("pkRm"), "pkRm")
    try check(HPKE.PrivateKey(derivedFrom: f("ikmE")).publicKey.bytes == f("pkEm"), "pkEm")
    let senderKey = try v.optionalHexField("ikmS").map { HPKE.PrivateKey(derivedFrom: $0) }
    try check(senderKey?.publicKey.bytes == v.optionalHexField("pkSm"), "pkSm")
    let psk = try v.optionalHexField("psk").map { try HPKE.PSK(key: SecretBytes($0), id: f("psk_id")) }
    let encap = try DHKEM.encapsulate(to: recipient.publicKey, senderKey: senderKey, ikmE: f("ikmE"))
    try check(encap.sharedSecret == f("shared_secret"), "shared_secret")
    let sender = try HPKE.Sender(recipientKey: recipient.publicKey, info: f("info"), psk: psk, senderKey: senderKey, ikmE: f("ikmE"))
    try check(sender.mode == mode, "mode")
    try check(sender.encapsulatedKey == f("enc"), "enc")
    try check(raw(sender.schedule.key) == f("key"), "key")
    try check(sender.schedule.baseNonce == f("base_nonce"), "base_nonce")
    try check(raw(sender.schedule.exporterSecret) == f("exporter_secret"), "exporter_secret")
    let receiver = try HPKE.Recipient(encapsulatedKey: f("enc"), recipientKey: recipient, info: f("info"),
                                      psk: psk, senderKey: senderKey?.publicKey)
    let encryptions = [try (u64(f("sequence_number")), f("pt"), f("aad"), f("nonce"), f("ct"))]
        + (try rfcJSON(enc: f("enc")).encryptions)
    for (seq, pt, aad, nonce, ct) in encryptions {
        sender.schedule.sequence = seq
        receiver.schedule.sequence = seq
        try check(try sender.schedule.currentNonce() == nonce, "nonce of seq \(seq)")
        try check(try sender.seal(pt, aad: aad) == ct, "ct of seq \(seq)")
        try check(try receiver.open(ct, aad: aad) == pt, "open of seq \(seq)")
    }
    let exports = [try (f("exporter_context"), f("exported_value"))] + (try rfcJSON(enc: f("enc")).exports)
    for (context, value) in exports {
        try check(raw(try sender.export(context: context, length: value.count)) == value, "export")
        try check(raw(try receiver.export(context: context, length: value.count)) == value, "export (recipient)")
    }
}

/// Every encryption and export of the RFC vector with this `enc`, from the json in protocol/vectors.
private func rfcJSON(enc: [UInt8]) throws -> (encryptions: [(UInt64, [UInt8], [UInt8], [UInt8], [UInt8])], exports: [([UInt8], [UInt8])]) {
    let url = vectorDirectory().appendingPathComponent("hpke-rfc9180-x25519-sha256-chacha20poly1305.json")
    let root = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
    let vectors = root?["vectors"] as? [[String: Any]] ?? []
    let h: (String?) -> [UInt8] = { bytes(fromHex: $0 ?? "") ?? [] }
    guard let v = vectors.first(where: { h(($0["setup"] as? [String: String])?["enc"]) == enc }),
          let encs = v["encryptions"] as? [[String: String]], let exps = v["exports"] as? [[String: String]],
          encs.count == 6, exps.count == 3 else {
        throw SealingMismatch(description: "no RFC vector with this enc in the json")
    }
    return (encs.map { (UInt64($0["sequence_number"] ?? "") ?? 0, h($0["pt"]), h($0["aad"]), h($0["nonce"]), h($0["ct"])) },
            exps.map { (h($0["exporter_context"]), h($0["exported_value"])) })
}

// MARK: envelope

@Sendable private func checkEnvelope(_ v: VectorFile) throws {
    try v.requireOnly(["sender_seed", "sender_hpke_secret", "sender_record", "recipient_seed", "recipient_hpke_secret",
                       "recipient_record", "ikm_e", "message_id", "timestamp", "now", "window", "body", "stream_secret"])
    let recipient = try identity(v, "recipient")
    let sender = try DeviceRecord(encoded: v.hexField("sender_record"))
    let now = try u64(v.hexField("now"))
    var replay = try v.optionalHexField("window").map { ReplayGuard(window: try u64($0)) } ?? ReplayGuard()
    let open = { (g: inout ReplayGuard) in try Envelope.open(v.payload, by: recipient, from: sender, replay: &g, now: now) }
    switch v.expect {
    case "success":
        let opened = try open(&replay)
        try check(opened.body == v.hexField("body"), "body")
        try check(opened.messageID.bytes == v.hexField("message_id"), "message_id")
        try check(opened.timestamp == u64(v.hexField("timestamp")), "timestamp")
        try check(raw(opened.streamSecret) == v.hexField("stream_secret"), "stream_secret")
        let me = try identity(v, "sender")
        // In the vector's bucket (49 bytes of framing): the smallest, or a larger one when shaped.
        let again = try Envelope.seal(body: opened.body, from: me, to: recipient.record, now: opened.timestamp,
                                      messageID: opened.messageID, ikmE: v.hexField("ikm_e"), bucket: v.payload.count - 49)
        try check(again.bytes == v.payload, "resealing with ikm_e gives other bytes")
    default:
        try checkRefusal(v.expect, kind: "envelope", &replay, open)
    }
}

// MARK: stream

private func streamOutcome(_ error: Error) -> String {
    switch error as? SealingError {
    case .openFailed: return "open failure"
    case .reordered: return "reordered"
    case .duplicate: return "duplicate"
    case .dropped: return "dropped"
    case .truncated: return "truncated"
    case .afterFinal: return "after final"
    default: return "\(error)"
    }
}

@Sendable private func checkStream(_ v: VectorFile) throws {
    try v.requireOnly(["secret", "key", "base_nonce", "plaintext"])
    let secret = SecretBytes(try v.hexField("secret"))
    let keys = try StreamKeys(secret: secret)
    try check(try v.optionalHexField("key").map { $0 == raw(keys.key) } ?? true, "key")
    try check(try v.optionalHexField("base_nonce").map { $0 == keys.baseNonce } ?? true, "base_nonce")
    var chunks: [[UInt8]] = []
    var rest = v.payload[...]
    while !rest.isEmpty {
        try check(rest.count >= 4, "payload framing")
        let n = rest.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        try check(rest.count >= 4 + n, "payload framing")
        chunks.append(Array(rest.dropFirst(4).prefix(n)))
        rest = rest.dropFirst(4 + n)
    }
    let opener = try StreamOpener(secret: secret)
    var delivered: [(data: [UInt8], isFinal: Bool)] = []
    var lastError: Error?
    for chunk in chunks {
        do { delivered.append(try opener.open(chunk)); lastError = nil } catch { lastError = error }
    }
    // The outcome: the last chunk's error, else finish()'s, else success.
    if lastError == nil { do { try opener.finish() } catch { lastError = error } }
    let outcome = lastError.map(streamOutcome) ?? "success"
    try check(outcome == v.expect, "outcome \(outcome), expected \(v.expect)")
    try check(delivered.flatMap(\.data) == v.hexField("plaintext"), "delivered plaintext")
    if v.expect == "success" {
        let sealer = try StreamSealer(secret: secret)
        try check(try delivered.map { try sealer.seal($0.data, final: $0.isFinal) } == chunks, "resealing gives other bytes")
    }
}

// MARK: identity-record

@Sendable private func checkIdentityRecord(_ v: VectorFile) throws {
    try v.requireOnly(["signing_seed", "hpke_secret"])
    switch v.expect {
    case "success":
        let record = try DeviceRecord(encoded: v.payload)
        try check(record.encoded == v.payload, "re-encoding differs")
        let identity = try DeviceIdentity(signingKey: SigningKey(seed: SecretBytes(v.hexField("signing_seed"))),
                                          hpkeKey: HPKE.PrivateKey(secret: SecretBytes(v.hexField("hpke_secret"))),
                                          name: record.name, createdAt: record.createdAt)
        try check(identity.record.encoded == v.payload, "signing the record again gives other bytes")
    case "decode failure":
        do { _ = try DeviceRecord(encoded: v.payload) } catch SealingError.invalidRecord { return }
        throw SealingMismatch(description: "expected decode failure")
    default:
        throw SealingMismatch(description: "identity-record does not know expect \(v.expect)")
    }
}
