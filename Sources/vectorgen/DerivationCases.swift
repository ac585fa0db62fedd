// Generators for the derivation vectors (SPEC 8, "Derivation kinds"): collapse keys, prefix
// hashes, join proofs and the stream-chunk framing of sealed payloads. Inputs are fixed; the
// outputs come from the implementation and the checkers recompute them from SPEC's formulas.
import Basics
import Courier
import Sealing
import Signing

private func hs(_ s: String) -> String { hexString(Array(s.utf8)) }

func derivationVectorCases() throws -> [VectorCase] {
    return try collapseCases() + prefixHashCases() + joinProofCases() + streamPayloadCases()
}

private func collapseCases() throws -> [VectorCase] {
    let seed = fixed(21), recipient = PublicKey(bytes: fixed(22))!
    func c(_ name: String, _ kind: String) throws -> VectorCase {
        VectorCase(name: "collapse-key-" + name, kind: "collapse-key", expect: "success",
                   comment: "the collapse key of kind '\(kind)' from the sender with this seed to this recipient",
                   fields: [("sender-seed", hexString(seed)), ("collapse-kind", hs(kind)), ("recipient", hexString(recipient.bytes))],
                   payload: Courier.collapseKey(seed: SecretBytes(seed), kind, to: recipient))
    }
    return [try c("advert", "advert"), try c("model-choice", "model-choice ollama")]
}

private func prefixHashCases() throws -> [VectorCase] {
    let messages: [(role: UInt8, content: String)] = [(1, "Be brief."), (2, "Grüß dich"), (3, "")]
    var fields: [(String, String)] = []
    var h = ConversationHash.empty
    for (i, m) in messages.enumerated() {
        h = ConversationHash.extend(h, role: m.role, content: m.content)
        fields += [("message.\(i).role", hexString([m.role])), ("message.\(i).content", hs(m.content)), ("hash.\(i)", hexString(h))]
    }
    return [
        VectorCase(name: "prefix-hash-empty", kind: "prefix-hash", expect: "success",
                   comment: "the empty conversation: 32 zero bytes", payload: ConversationHash.empty),
        VectorCase(name: "prefix-hash-three", kind: "prefix-hash", expect: "success",
                   comment: "system, user (non-ASCII), assistant (empty): the hash after each, the last as payload",
                   fields: fields, payload: h),
    ]
}

private func joinProofCases() throws -> [VectorCase] {
    let host = try identity(23, "host"), joiner = try identity(24, "friend's laptop")
    let secret = fixed(25)
    return [
        VectorCase(name: "join-proof", kind: "join-proof", expect: "success",
                   comment: "the secret proof of a join: payload = secret_proof",
                   fields: [("invite-secret", hexString(secret)), ("host-signing-key", hexString(host.record.signingKey.bytes)),
                            ("joiner-record", hexString(joiner.record.encoded))],
                   payload: InviteProof.make(secret: secret, host: host.record.signingKey, joinerRecord: joiner.record.encoded)),
    ]
}

private func streamPayloadCases() throws -> [VectorCase] {
    let secret = fixed(26)
    let sealer = try StreamSealer(secret: SecretBytes(secret))
    let chunk = try sealer.seal(Array("Hallo".utf8), final: true)
    let id = MessageID(bytes: fixed(27, count: 16))!
    return [
        VectorCase(name: "stream-payload-chunk", kind: "stream-payload", expect: "success",
                   comment: "sealed bytes of a send: 0x02, the stream id, one chunk (final, data 'Hallo')",
                   fields: [("stream-id", hexString(id.bytes)), ("chunk", hexString(chunk)), ("secret", hexString(secret)), ("data", hs("Hallo"))],
                   payload: SealedPayload.streamChunkBytes(streamID: id, chunk: chunk)),
        VectorCase(name: "stream-payload-short", kind: "stream-payload", expect: "skipped",
                   comment: "0x02 and a stream id with no chunk: ignored, as an unknown first byte is",
                   payload: [0x02] + id.bytes),
        VectorCase(name: "stream-payload-unknown-tag", kind: "stream-payload", expect: "skipped",
                   comment: "first byte 0x04 is no kind of this version: ignored", payload: [0x04] + id.bytes + chunk),
    ]
}
