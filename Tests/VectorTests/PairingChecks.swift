// Checkers for the pairing and sharing kinds (SPEC 8): pairing-code, pairing-proofs,
// invite-code. Pairing codes are also decoded by hand (base32 bit packing, checksum) so the
// file, SPEC's description and the implementation agree.
import CSodium
import Foundation
import Pairing
@testable import Sealing
import Signing
@testable import Wire

let pairingCheckers: [String: VectorChecker] = [
    "pairing-code": checkPairingCode,
    "pairing-proofs": checkPairingProofs,
    "invite-code": checkInviteCode,
]

private func utf8(_ v: VectorFile, _ key: String) throws -> String { String(decoding: try v.hexField(key), as: UTF8.self) }

/// SPEC 6 "Pairing a device": 5 bits per character, most significant first; the last
/// character's unused low bits are zero. Returns nil for anything else.
private func base32(_ text: Substring) -> [UInt8]? {
    let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz")
    var out: [UInt8] = [], acc = 0, bits = 0
    for ch in text.lowercased() where ch != "-" && !ch.isWhitespace {
        let c: Character = ch == "i" || ch == "l" ? "1" : ch == "o" ? "0" : ch
        guard let v = alphabet.firstIndex(of: c) else { return nil }
        acc = (acc << 5 | v) & 0xFFFF; bits += 5
        if bits >= 8 { bits -= 8; out.append(UInt8((acc >> bits) & 0xFF)) }
    }
    return acc & ((1 << bits) - 1) == 0 ? out : nil
}

@Sendable private func checkPairingCode(_ v: VectorFile) throws {
    let alternateKeys = (0..<8).map { "alternate.\($0)" }
    try v.requireOnly(Set(["expires-ms", "code-id", "secret", "inviter-signing-key", "inviter-hpke-key", "pin", "relay-url", "text"]
                          + alternateKeys))
    let text = String(decoding: v.payload, as: UTF8.self)
    let code: PairingCode
    do { code = try PairingCode(parsing: text) } catch {
        try check(v.expect == "mistyped" && error == .mistyped, "\(v.path): expected \(v.expect), got \(error)")
        return
    }
    try check(v.expect == "success", "\(v.path): expected \(v.expect), parsed a code")
    try check(code.expiresMs == Int64(bitPattern: try u64(v.hexField("expires-ms"))), "\(v.path): expires-ms")
    try check(code.codeID.bytes == (try v.hexField("code-id")) && code.secret.bytes == (try v.hexField("secret")), "\(v.path): id or secret")
    try check(code.inviterSigningKey.bytes == (try v.hexField("inviter-signing-key")), "\(v.path): inviter-signing-key")
    try check(code.inviterHPKEKey.bytes == (try v.hexField("inviter-hpke-key")), "\(v.path): inviter-hpke-key")
    try check(code.pin == (try v.optionalHexField("pin")) && code.relayURL == (try utf8(v, "relay-url")), "\(v.path): pin or relay-url")
    let alternates = try alternateKeys.filter { v.fields[$0] != nil }.map { try utf8(v, $0) }
    try check(code.alternates == alternates, "\(v.path): alternates \(code.alternates), file \(alternates)")
    let canonical = try v.optionalHexField("text").map { String(decoding: $0, as: UTF8.self) } ?? text
    try check(code.text == canonical, "\(v.path): re-encoding differs from the canonical text")
    // By hand: the layout of SPEC's table, then the checksum over every byte before it.
    guard let b = base32(canonical.dropFirst(PairingCode.prefix.count)) else { throw SealingMismatch(description: "\(v.path): base32") }
    var expect: [UInt8] = [1, (code.pin == nil ? 0 : 1) | (alternates.isEmpty ? 0 : 2)] + (try v.hexField("expires-ms")) + code.codeID.bytes + code.secret.bytes
    expect += code.inviterSigningKey.bytes + code.inviterHPKEKey.bytes + (code.pin ?? [])
    func str16(_ s: String) -> [UInt8] { let u = Array(s.utf8); return [UInt8(u.count >> 8), UInt8(u.count & 0xFF)] + u }
    expect += str16(code.relayURL)
    if !alternates.isEmpty { expect += [0, UInt8(alternates.count)] + alternates.flatMap(str16) }
    var sum = [UInt8](repeating: 0, count: 32)
    let signed = Array("homebase-pair-code-v1".utf8) + [0] + expect
    _ = crypto_hash_sha256(&sum, signed, UInt64(signed.count))
    try check(b == expect + sum.prefix(4), "\(v.path): hand-decoded bytes differ from SPEC's layout")
}

@Sendable private func checkPairingProofs(_ v: VectorFile) throws {
    try v.requireOnly(["secret", "code-id", "inviter-record", "joiner-record", "request-proof", "welcome", "confirmation"])
    try check(v.expect == "success", "pairing-proofs knows only success")
    let secret = try v.hexField("secret"), codeID = try v.hexField("code-id")
    let inviter = try DeviceRecord(encoded: v.hexField("inviter-record")), joiner = try DeviceRecord(encoded: v.hexField("joiner-record"))
    func mac(_ domain: String, _ bound: [UInt8]) -> [UInt8] {
        let input = Array(domain.utf8) + [0] + bound
        var out = [UInt8](repeating: 0, count: 32)
        _ = crypto_auth_hmacsha256(&out, input, UInt64(input.count), secret)
        return out
    }
    let request = mac("homebase-pair-request-v1", codeID + inviter.signingKey.bytes + joiner.encoded)
    try check(request == (try v.hexField("request-proof")), "\(v.path): request-proof")
    try check(PairingProofs.request(secret: Secret32(unchecked: secret), codeID: Bytes8(unchecked: codeID), inviter: inviter.signingKey,
                                    joiner: joiner).bytes == request, "\(v.path): PairingProofs.request")
    guard case .pairWelcome(let w) = try AppMessage.decode(v.hexField("welcome")) else { throw SealingMismatch(description: "welcome") }
    let welcome = mac("homebase-pair-welcome-v1", joiner.signingKey.bytes + (try w.unprovenBytes()))
    try check(w.proof.bytes == welcome, "\(v.path): the welcome's proof")
    let c = mac("homebase-pair-confirm-v1", inviter.encoded + joiner.encoded)
    let n = (UInt32(c[0]) << 24 | UInt32(c[1]) << 16 | UInt32(c[2]) << 8 | UInt32(c[3])) % 100_000_000
    let digits = String(n), padded = String(repeating: "0", count: 8 - digits.count) + digits
    let shown = padded.prefix(4) + "-" + padded.suffix(4)
    try check(shown == (try utf8(v, "confirmation")), "\(v.path): confirmation")
    try check(PairingProofs.confirmation(secret: Secret32(unchecked: secret), inviter: inviter, joiner: joiner) == shown,
              "\(v.path): PairingProofs.confirmation")
}

@Sendable private func checkInviteCode(_ v: VectorFile) throws {
    try v.requireOnly(["message", "host-record"])
    let text = String(decoding: v.payload, as: UTF8.self)
    let decoded: (invite: AppMessage.Invite, hostRecord: [UInt8])
    do { decoded = try InviteCode.decode(text) } catch {
        guard case .badInviteCode = error, v.expect == "bad invite code" else {
            throw SealingMismatch(description: "\(v.path): expected \(v.expect), got \(error)")
        }
        return
    }
    try check(v.expect == "success", "\(v.path): expected \(v.expect), decoded an invite")
    let message = try AppMessage.invite(decoded.invite).encode()
    try check(message == (try v.hexField("message")), "\(v.path): message")
    try check(decoded.hostRecord == (try v.hexField("host-record")), "\(v.path): host-record")
    try check(try InviteCode.encode(decoded.invite, hostRecord: decoded.hostRecord) == text, "\(v.path): re-encoding differs")
    // b = u16 len(m) || m || host record || crc32(b without its last 4 bytes); the text is base64url without padding.
    var b = [UInt8(message.count >> 8), UInt8(message.count & 0xFF)] + message + decoded.hostRecord
    let crc = InviteCode.crc32(b)
    b += [UInt8(crc >> 24), UInt8(truncatingIfNeeded: crc >> 16), UInt8(truncatingIfNeeded: crc >> 8), UInt8(truncatingIfNeeded: crc)]
    let b64 = Data(b).base64EncodedString().replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    try check(text == InviteCode.prefix + b64, "\(v.path): the text is not base64url of SPEC's layout")
}
