// Checker for the `introduction` vector kind (protocol/SPEC.md, "Test vectors").
@testable import Sealing
import Signing

@Sendable func checkIntroduction(_ v: VectorFile) throws {
    try v.requireOnly(["relay_sender", "recipient_seed", "recipient_hpke_secret", "recipient_record", "now",
                       "sender_seed", "sender_hpke_secret", "sender_record", "ikm_e", "message_id", "timestamp", "body"])
    let recipient = try identity(v, "recipient")
    guard let relaySender = PublicKey(bytes: try v.hexField("relay_sender")) else {
        throw SealingMismatch(description: "relay_sender is 32 bytes")
    }
    let now = try u64(v.hexField("now"))
    var replay = ReplayGuard()
    let open = { (g: inout ReplayGuard) in
        try Introduction.open(v.payload, by: recipient, from: relaySender, replay: &g, now: now)
    }
    switch v.expect {
    case "success":
        let opened = try open(&replay)
        let sender = try identity(v, "sender")
        try check(opened.sender == sender.record, "sender record")
        try check(opened.body == v.hexField("body"), "body")
        try check(opened.messageID.bytes == v.hexField("message_id"), "message_id")
        try check(opened.timestamp == u64(v.hexField("timestamp")), "timestamp")
        let again = try Introduction.seal(opened.body, from: sender, toSigningKey: recipient.record.signingKey,
                                          hpkeKey: recipient.record.hpkeKey, now: opened.timestamp,
                                          messageID: opened.messageID, ikmE: v.hexField("ikm_e"))
        try check(again == v.payload, "resealing with ikm_e gives other bytes")
    default:
        try checkRefusal(v.expect, kind: "introduction", &replay, open)
    }
}
