import Basics
import Testing
@testable import Sealing
import Signing

@Test func inviteProofBindsSecretHostAndJoiner() throws {
    let host = try DeviceIdentity.generate(name: "host", now: 1), joiner = try DeviceIdentity.generate(name: "me", now: 1)
    let other = try DeviceIdentity.generate(name: "other", now: 1)
    let secret = randomBytes(count: 32)
    let proof = InviteProof.make(secret: secret, host: host.signingKey.publicKey, joinerRecord: joiner.record.encoded)
    #expect(proof.count == 32)
    #expect(InviteProof.matches(proof, secret: secret, host: host.signingKey.publicKey, joinerRecord: joiner.record.encoded))
    var wrongSecret = secret; wrongSecret[0] ^= 1
    #expect(!InviteProof.matches(proof, secret: wrongSecret, host: host.signingKey.publicKey, joinerRecord: joiner.record.encoded))
    #expect(!InviteProof.matches(proof, secret: secret, host: other.signingKey.publicKey, joinerRecord: joiner.record.encoded))
    #expect(!InviteProof.matches(proof, secret: secret, host: host.signingKey.publicKey, joinerRecord: other.record.encoded))
    #expect(!InviteProof.matches(Array(proof.dropLast()), secret: secret, host: host.signingKey.publicKey,
                                 joinerRecord: joiner.record.encoded))
}

@Test func inviteProofKnownAnswer() {
    // HMAC-SHA256(HKDF-Expand(HKDF-Extract("homebase-invite-v1", 0x00*32), "homebase-invite-v1 join proof", 32),
    //             0x01*32 || "rec"), computed independently with Python's hmac/hashlib.
    let proof = InviteProof.make(secret: [UInt8](repeating: 0, count: 32), host: PublicKey(bytes: [UInt8](repeating: 1, count: 32))!,
                                 joinerRecord: Array("rec".utf8))
    #expect(hexString(proof) == "d28f8f3c3ad67f71d726fea383263f917b259120667bde34dea611f740d9939c")
}

