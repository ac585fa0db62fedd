import Testing
@testable import Sealing
import Signing

private func introduce(_ body: [UInt8], _ p: Pair, at time: UInt64 = now) throws -> [UInt8] {
    try Introduction.seal(body, from: p.alice, toSigningKey: p.bob.signingKey.publicKey,
                          hpkeKey: p.bob.hpkeKey.publicKey, now: time)
}

private func open(_ payload: [UInt8], _ p: Pair, from sender: PublicKey? = nil) throws -> OpenedIntroduction {
    var guardian = ReplayGuard()
    return try Introduction.open(payload, by: p.bob, from: sender ?? p.alice.signingKey.publicKey,
                                 replay: &guardian, now: now)
}

@Test func introductionRoundTripCarriesTheSenderRecord() throws {
    let p = Pair()
    let payload = try introduce(Array("join me".utf8), p)
    #expect(payload[0] == 0x03)
    #expect(payload.count == 49 + 256)  // record (143) + overhead (96) + 7 <= 256
    let opened = try open(payload, p)
    #expect(opened.body == Array("join me".utf8))
    #expect(opened.sender == p.alice.record)
    #expect(opened.timestamp == now)
}

@Test func introductionPadsLikeEnvelopes() throws {
    let p = Pair()
    // Record 143 bytes + 96 of overhead: bodies 0...17 share the 256 bucket, 18...273 the 512 one.
    let empty = try introduce([], p).count
    #expect(try introduce([UInt8](repeating: 7, count: 17), p).count == empty)
    #expect(empty == 49 + 256)
    #expect(try introduce([UInt8](repeating: 7, count: 18), p).count == 49 + 512)
    #expect(try introduce([UInt8](repeating: 7, count: 273), p).count == 49 + 512)
    #expect(try introduce([UInt8](repeating: 7, count: 274), p).count == 49 + 1024)
    #expect(throws: SealingError.tooLarge) { try introduce([UInt8](repeating: 1, count: 1 << 20), p) }
}

@Test func everyIntroductionFailureLooksTheSame() throws {
    let p = Pair()
    let payload = try introduce(Array("hello".utf8), p)
    var flipped = payload; flipped[60] ^= 1
    var badTag = payload; badTag[0] = 0x01
    let carol = try DeviceIdentity.generate(name: "carol", now: 1)
    let cases: [(String, [UInt8], DeviceIdentity, PublicKey)] = [
        ("tampered ciphertext", flipped, p.bob, p.alice.signingKey.publicKey),
        ("wrong tag", badTag, p.bob, p.alice.signingKey.publicKey),
        ("truncated", Array(payload.dropLast()), p.bob, p.alice.signingKey.publicKey),
        ("not the recipient", payload, carol, p.alice.signingKey.publicKey),
        ("relay names another sender", payload, p.bob, carol.signingKey.publicKey),
    ]
    for (name, bytes, by, from) in cases {
        var g = ReplayGuard()
        #expect(throws: SealingError.openFailed, "\(name)") {
            try Introduction.open(bytes, by: by, from: from, replay: &g, now: now)
        }
    }
}

@Test func introductionBindsTheRecipientSigningKey() throws {
    // Sealed to bob's HPKE key but naming carol as recipient: bob's info differs, so it fails.
    let p = Pair()
    let carol = try DeviceIdentity.generate(name: "carol", now: 1)
    let payload = try Introduction.seal([1], from: p.alice, toSigningKey: carol.signingKey.publicKey,
                                        hpkeKey: p.bob.hpkeKey.publicKey, now: now)
    #expect(throws: SealingError.openFailed) { try open(payload, p) }
}

@Test func introductionWithAForeignRecordFailsTheSignature() throws {
    // Mallory seals under alice's public record (base mode lets anyone seal): her signature fails.
    let p = Pair()
    let mallory = try DeviceIdentity.generate(name: "mallory", now: 1)
    let context = try HPKE.Sender(recipientKey: p.bob.hpkeKey.publicKey,
                                  info: Introduction.infoLabel + p.bob.signingKey.publicKey.bytes,
                                  psk: nil, senderKey: nil, ikmE: randomBytes(count: 32))
    let id = MessageID.random()
    let sig = mallory.signingKey.sign(Introduction.signed(enc: context.encapsulatedKey, recipient: p.bob.signingKey.publicKey,
                                                          id: id, timestamp: now, body: [9]))
    let plain = IntroductionFormat.pad(record: p.alice.record.encoded, id: id, timestamp: now, signature: sig,
                                       body: [9], bucket: 512)
    let forged = [Introduction.tag] + context.encapsulatedKey + (try context.seal(plain, aad: [Introduction.tag]))
    #expect(throws: SealingError.openFailed) { try open(forged, p) }
}

@Test func introductionReplayIsRefused() throws {
    let p = Pair()
    let payload = try introduce([1, 2, 3], p)
    var g = ReplayGuard()
    _ = try Introduction.open(payload, by: p.bob, from: p.alice.signingKey.publicKey, replay: &g, now: now)
    #expect(throws: SealingError.replayed) {
        try Introduction.open(payload, by: p.bob, from: p.alice.signingKey.publicKey, replay: &g, now: now)
    }
    let old = try introduce([1], p, at: now - 8 * 24 * 3_600_000)
    #expect(throws: SealingError.replayed) { try open(old, p) }
}
