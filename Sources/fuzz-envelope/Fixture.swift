// Deterministic keys for the envelope fuzz target, built once (a static `let` of a non-main file:
// lazily initialised, thread-safe, and not main-actor isolated).
//
// They are the keys of protocol/vectors (alice seals to bob, stream secret fixed(200)), so the
// corpus seeded from the vector payloads holds genuine envelopes and chunks: the fuzzer reaches
// the checks behind the AEAD tag from its first inputs, and mutates from there.
import Sealing
import Signing

enum Fixture {
    /// The vector generator's fixed bytes (Sources/vectorgen/SealingCases.swift).
    static func fixed(_ tag: UInt8, count: Int = 32) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: Int(tag) &* 37 &+ $0 &* 11) }
    }

    static func identity(_ tag: UInt8, _ name: String) -> DeviceIdentity {
        try! DeviceIdentity(signingKey: SigningKey(seed: SecretBytes(fixed(tag))),
                            hpkeKey: HPKE.PrivateKey(secret: SecretBytes(fixed(tag &+ 100))), name: name,
                            createdAt: 1_700_000_000_000)
    }

    static let sender = identity(1, "alice laptop")
    static let recipient = identity(2, "bob homebase")
    static let sealedAt: UInt64 = 1_750_000_000_000
    /// The opener's clock: two seconds after sealing, well inside the replay window.
    static let now: UInt64 = sealedAt + 2_000
    static let streamSecret = SecretBytes(fixed(200))

    /// Every envelope that may open: those sealed here with the vectors' ids and ephemeral keys.
    /// Anything else that opens was forged without a key, which is a bug.
    static let genuine: Set<[UInt8]> = {
        let bodies: [(UInt8, [UInt8])] = [(10, Array("{\"model\":\"llama3\",\"prompt\":\"hi\"}".utf8)), (11, []),
                                          (13, (0..<197).map { UInt8(truncatingIfNeeded: $0) })]
        return Set(bodies.map { id, body in
            try! Envelope.seal(body: body, from: sender, to: recipient.record, now: sealedAt,
                               messageID: MessageID(bytes: fixed(id, count: 16))!, ikmE: fixed(id &+ 50)).bytes
        })
    }()
}
