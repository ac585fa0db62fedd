// Checkers for the derivation kinds (SPEC 8): collapse-key, prefix-hash, join-proof,
// stream-payload. Each recomputes the value from SPEC's formula with libsodium directly, and
// compares with the implementation too, so the file, the formula and the code agree.
import CSodium
import Courier
import Foundation
@testable import Sealing
import Signing

let derivationCheckers: [String: VectorChecker] = [
    "collapse-key": checkCollapseKey,
    "prefix-hash": checkPrefixHash,
    "join-proof": checkJoinProof,
    "stream-payload": checkStreamPayload,
]

private func blake2b(_ length: Int, key: [UInt8], _ input: [UInt8]) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: length)
    _ = crypto_generichash(&out, length, input, UInt64(input.count), key, key.count)
    return out
}

@Sendable private func checkCollapseKey(_ v: VectorFile) throws {
    try v.requireOnly(["sender-seed", "collapse-kind", "recipient"])
    try check(v.expect == "success", "collapse-key knows only success")
    let seed = try v.hexField("sender-seed"), kind = try v.hexField("collapse-kind"), recipient = try v.hexField("recipient")
    // collapse_key = BLAKE2b(16, key = BLAKE2b(32, key = seed, "homebase collapse v1"), kind || recipient)
    let secret = blake2b(32, key: seed, Array("homebase collapse v1".utf8))
    try check(blake2b(16, key: secret, kind + recipient) == v.payload, "\(v.path): formula differs from the payload")
    let code = Courier.collapseKey(seed: SecretBytes(seed), String(decoding: kind, as: UTF8.self), to: PublicKey(bytes: recipient)!)
    try check(code == v.payload, "\(v.path): Courier differs from the payload")
}

@Sendable private func checkPrefixHash(_ v: VectorFile) throws {
    var keys: Set<String> = []
    for i in 0..<16 { keys.formUnion(["message.\(i).role", "message.\(i).content", "hash.\(i)"]) }
    try v.requireOnly(keys)
    try check(v.expect == "success", "prefix-hash knows only success")
    var h = [UInt8](repeating: 0, count: 32), i = 0
    while let role = try v.optionalHexField("message.\(i).role") {
        let content = try v.hexField("message.\(i).content")
        try check(role.count == 1, "\(v.path): a role is one byte")
        // prefix_hash(i+1) = SHA-256("homebase conversation v1" || 0x00 || prefix_hash(i) || role || u32 len || content)
        var input = Array("homebase conversation v1".utf8) + [0] + h + role
        input += (0..<4).map { UInt8(truncatingIfNeeded: content.count >> (24 - 8 * $0)) } + content
        var next = [UInt8](repeating: 0, count: 32)
        _ = crypto_hash_sha256(&next, input, UInt64(input.count))
        let code = ConversationHash.extend(h, role: role[0], content: String(decoding: content, as: UTF8.self))
        try check(code == next && next == (try v.hexField("hash.\(i)")), "\(v.path): hash.\(i)")
        h = next
        i += 1
    }
    try check(h == v.payload, "\(v.path): the last hash differs from the payload")
}

@Sendable private func checkJoinProof(_ v: VectorFile) throws {
    try v.requireOnly(["invite-secret", "host-signing-key", "joiner-record"])
    try check(v.expect == "success", "join-proof knows only success")
    let secret = try v.hexField("invite-secret"), host = try v.hexField("host-signing-key"), record = try v.hexField("joiner-record")
    // proof_key = HKDF-Expand(HKDF-Extract("homebase-invite-v1", secret), "homebase-invite-v1 join proof", 32)
    let prk = HKDF.extract(salt: Array("homebase-invite-v1".utf8), ikm: secret)
    let key = HKDF.expand(prk: prk, info: Array("homebase-invite-v1 join proof".utf8), length: 32)
    var mac = [UInt8](repeating: 0, count: 32)
    let input = host + record
    _ = hmacSHA256(&mac, key, input)
    try check(mac == v.payload, "\(v.path): HMAC differs from the payload")
    try check(InviteProof.make(secret: secret, host: PublicKey(bytes: host)!, joinerRecord: record) == v.payload,
              "\(v.path): InviteProof differs from the payload")
}

/// HMAC-SHA256 with a key of any length (libsodium's one-shot takes 32-byte keys only).
private func hmacSHA256(_ out: inout [UInt8], _ key: [UInt8], _ input: [UInt8]) -> Int32 {
    var state = crypto_auth_hmacsha256_state()
    crypto_auth_hmacsha256_init(&state, key, key.count)
    crypto_auth_hmacsha256_update(&state, input, UInt64(input.count))
    return crypto_auth_hmacsha256_final(&state, &out)
}

@Sendable private func checkStreamPayload(_ v: VectorFile) throws {
    try v.requireOnly(["stream-id", "chunk", "secret", "data"])
    guard case .streamChunk(let id, let chunk)? = SealedPayload.classify(v.payload) else {
        try check(v.expect == "skipped", "\(v.path): expected \(v.expect), the payload was not a stream chunk")
        return
    }
    try check(v.expect == "success", "\(v.path): expected \(v.expect), classified a stream chunk")
    try check(id.bytes == (try v.hexField("stream-id")) && Array(chunk) == (try v.hexField("chunk")), "\(v.path): id or chunk")
    try check(SealedPayload.streamChunkBytes(streamID: id, chunk: Array(chunk)) == v.payload, "\(v.path): re-framing differs")
    let opened = try StreamOpener(secret: SecretBytes(try v.hexField("secret"))).open(chunk)
    try check(opened.data == (try v.hexField("data")), "\(v.path): opened data")
}
