// Generators for the pairing and sharing vectors (SPEC 8, "Pairing and sharing kinds"): the
// pairing code's text, its proofs and confirmation number, and the invite's text form.
import Basics
import Pairing
import Sealing
import Signing
import Wire

private func hs(_ s: String) -> String { hexString(Array(s.utf8)) }

func pairingVectorCases() throws -> [VectorCase] {
    return try pairingCodeCases() + pairingProofCases() + inviteCodeCases()
}

private func sampleCode(pin: [UInt8]?, alternates: [String] = []) throws -> PairingCode {
    let inviter = try identity(31, "workstation")
    return PairingCode(relayURL: "wss://relay.example:443", pin: pin, expiresMs: 1_700_000_600_000,
                       codeID: Bytes8(unchecked: fixed(32, count: 8)), secret: Secret32(unchecked: fixed(33)),
                       inviterSigningKey: inviter.record.signingKey, inviterHPKEKey: inviter.record.hpkeKey,
                       alternates: alternates)
}

/// The other nodes of the vectors' cluster.
private let sampleAlternates = ["wss://node2.relay.example", "wss://node3.relay.example:8443/v1/connect"]

private func codeFields(_ c: PairingCode) -> [(String, String)] {
    [("expires-ms", u64(UInt64(c.expiresMs))), ("code-id", c.codeID.hex), ("secret", c.secret.hex),
     ("inviter-signing-key", hexString(c.inviterSigningKey.bytes)), ("inviter-hpke-key", hexString(c.inviterHPKEKey.bytes))]
        + (c.pin.map { [("pin", hexString($0))] } ?? []) + [("relay-url", hs(c.relayURL))]
        + c.alternates.enumerated().map { ("alternate.\($0.offset)", hs($0.element)) }
}

private func pairingCodeCases() throws -> [VectorCase] {
    let plain = try sampleCode(pin: nil), pinned = try sampleCode(pin: fixed(34))
    let cluster = try sampleCode(pin: fixed(34), alternates: sampleAlternates)
    // As a person types it: upper case, dashes every 4, `O` for 0, `L` for 1, a space.
    let body = plain.text.dropFirst(PairingCode.prefix.count)
    var typed = PairingCode.prefix
    for (i, ch) in body.enumerated() {
        if i > 0 && i % 4 == 0 { typed += i == 8 ? " " : "-" }
        typed += ch == "0" ? "O" : ch == "1" ? "L" : ch.uppercased()
    }
    var mistyped = Array(plain.text)
    let at = mistyped.count - 10
    mistyped[at] = mistyped[at] == "a" ? "b" : "a"
    return [
        VectorCase(name: "pairing-code", kind: "pairing-code", expect: "success",
                   comment: "payload = the code's text (UTF-8); no pin", fields: codeFields(plain), payload: Array(plain.text.utf8)),
        VectorCase(name: "pairing-code-pinned", kind: "pairing-code", expect: "success",
                   comment: "with a certificate pin (flag bit 0)", fields: codeFields(pinned), payload: Array(pinned.text.utf8)),
        VectorCase(name: "pairing-code-alternates", kind: "pairing-code", expect: "success",
                   comment: "a pin and two other nodes of the relay's cluster (flag bits 0 and 1)",
                   fields: codeFields(cluster), payload: Array(cluster.text.utf8)),
        VectorCase(name: "pairing-code-typed", kind: "pairing-code", expect: "success",
                   comment: "the first code as typed: upper case, dashes, a space, O for 0 and L for 1; `text` is its canonical form",
                   fields: codeFields(plain) + [("text", hs(plain.text))], payload: Array(typed.utf8)),
        VectorCase(name: "pairing-code-mistyped", kind: "pairing-code", expect: "mistyped",
                   comment: "one character changed: the checksum fails", payload: Array(String(mistyped).utf8)),
    ]
}

private func pairingProofCases() throws -> [VectorCase] {
    let code = try sampleCode(pin: nil)
    let inviter = try identity(31, "workstation"), joiner = try identity(35, "laptop")
    let account = Bytes32(unchecked: fixed(36))
    let roster = AppMessage.Roster(accountKey: account, version: 2, deviceRecords: [inviter.record.encoded, joiner.record.encoded],
                                   signature: Bytes64(unchecked: fixed(37, count: 64)))
    var welcome = AppMessage.PairWelcome(codeID: code.codeID, roster: roster)
    welcome.proof = try PairingProofs.welcome(secret: code.secret, joiner: joiner.record.signingKey, welcome)
    return [
        VectorCase(name: "pairing-proofs", kind: "pairing-proofs", expect: "success",
                   comment: "the request proof, the welcome proof (inside `welcome`) and the confirmation number of one pairing",
                   fields: [("secret", code.secret.hex), ("code-id", code.codeID.hex), ("inviter-record", hexString(inviter.record.encoded)),
                            ("joiner-record", hexString(joiner.record.encoded)),
                            ("request-proof", PairingProofs.request(code, joiner: joiner.record).hex),
                            ("welcome", hexString(try AppMessage.pairWelcome(welcome).encode())),
                            ("confirmation", hs(PairingProofs.confirmation(secret: code.secret, inviter: inviter.record, joiner: joiner.record)))]),
    ]
}

/// The invite of the vectors. A new invite field goes here (and in the checker's nothing: the
/// checker compares the decoded message with `message`, whatever its fields).
private func sampleInvite(host: DeviceIdentity, alternates: [String] = []) -> AppMessage.Invite {
    AppMessage.Invite(relayURL: "wss://relay.example:443", hostSigningKey: host.record.signingKey,
                      hostHPKEKey: Bytes32(unchecked: host.record.hpkeKey.bytes), inviteSecret: Secret32(unchecked: fixed(41)),
                      models: ["llama3.1:8b"], ratePerMinute: 30, expiresMs: 1_800_000_000_000, alternates: alternates)
}

private func inviteCodeCases() throws -> [VectorCase] {
    let host = try identity(40, "host")
    let invite = sampleInvite(host: host)
    let text = try InviteCode.encode(invite, hostRecord: host.record.encoded)
    var broken = Array(text)
    let at = broken.count - 3
    broken[at] = broken[at] == "A" ? "B" : "A"
    let fields = [("message", hexString(try AppMessage.invite(invite).encode())), ("host-record", hexString(host.record.encoded))]
    let cluster = sampleInvite(host: host, alternates: sampleAlternates)
    let clusterText = try InviteCode.encode(cluster, hostRecord: host.record.encoded)
    return [
        VectorCase(name: "invite-code", kind: "invite-code", expect: "success",
                   comment: "payload = the invite's text (UTF-8)", fields: fields, payload: Array(text.utf8)),
        VectorCase(name: "invite-code-alternates", kind: "invite-code", expect: "success",
                   comment: "an invite naming two other nodes of the relay's cluster (after the token flag)",
                   fields: [("message", hexString(try AppMessage.invite(cluster).encode())), ("host-record", hexString(host.record.encoded))],
                   payload: Array(clusterText.utf8)),
        VectorCase(name: "invite-code-bad-crc", kind: "invite-code", expect: "bad invite code",
                   comment: "one character changed near the end: the CRC fails", payload: Array(String(broken).utf8)),
    ]
}
