import Testing
@testable import Sealing
import Signing

struct Pair {
    let alice = try! DeviceIdentity.generate(name: "alice", now: 1)
    let bob = try! DeviceIdentity.generate(name: "bob", now: 1)
}

let now: UInt64 = 1_750_000_000_000

@Test func envelopeRoundTrip() throws {
    let p = Pair()
    let body = Array("a request".utf8)
    let sealed = try Envelope.seal(body: body, from: p.alice, to: p.bob.record, now: now)
    #expect(sealed.bytes.count == 49 + 256)  // a short body pads to the smallest bucket
    #expect(sealed.bytes[0] == 1)
    var guardBob = ReplayGuard()
    let opened = try Envelope.open(sealed.bytes, by: p.bob, from: p.alice.record, replay: &guardBob, now: now + 5)
    #expect(opened.body == body)
    #expect(opened.messageID == sealed.messageID)
    #expect(opened.timestamp == now)
    #expect(opened.sender == p.alice.signingKey.publicKey)
    #expect(opened.streamSecret == sealed.streamSecret)
}

@Test func emptyAndLargestBodies() throws {
    let p = Pair()
    var g = ReplayGuard()
    for size in [0, 16 * 1024, 65476, 65477, Envelope.maxBodyBytes] {
        let body = [UInt8](repeating: 0xab, count: size)
        let sealed = try Envelope.seal(body: body, from: p.alice, to: p.bob.record, now: now)
        #expect(try Envelope.open(sealed.bytes, by: p.bob, from: p.alice.record, replay: &g, now: now).body == body)
    }
    #expect(throws: SealingError.tooLarge) {
        try Envelope.seal(body: [UInt8](repeating: 0, count: Envelope.maxBodyBytes + 1), from: p.alice, to: p.bob.record, now: now)
    }
}

@Test func everyFailureLooksTheSame() throws {
    let p = Pair()
    let carol = try DeviceIdentity.generate(name: "carol", now: 1)
    let sealed = try Envelope.seal(body: [1, 2, 3], from: p.alice, to: p.bob.record, now: now).bytes
    func open(_ bytes: [UInt8], by: DeviceIdentity, from: DeviceRecord) throws {
        var g = ReplayGuard()
        _ = try Envelope.open(bytes, by: by, from: from, replay: &g, now: now)
    }
    for i in 0..<sealed.count {  // any flipped bit: version, enc, ciphertext, tag
        var bad = sealed
        bad[i] ^= 0x80
        #expect(throws: SealingError.openFailed) { try open(bad, by: p.bob, from: p.alice.record) }
    }
    #expect(throws: SealingError.openFailed) { try open(sealed, by: carol, from: p.alice.record) }  // wrong recipient
    #expect(throws: SealingError.openFailed) { try open(sealed, by: p.bob, from: carol.record) }    // wrong sender
    #expect(throws: SealingError.openFailed) { try open(Array(sealed.dropLast()), by: p.bob, from: p.alice.record) }
    #expect(throws: SealingError.openFailed) { try open(Array(sealed.prefix(40)), by: p.bob, from: p.alice.record) }
    #expect(throws: SealingError.openFailed) { try open([], by: p.bob, from: p.alice.record) }
}

@Test func innerSenderMustMatchTheRecord() throws {
    // Built by hand with the right info and HPKE keys, so that HPKE opens: only the inner
    // sender key (carol's, not alice's) is wrong, and the check of it must refuse.
    let p = Pair()
    let carol = try DeviceIdentity.generate(name: "carol", now: 1)
    let forged = try handSealed(carol.signingKey.publicKey.bytes + MessageID.random().bytes + be(now) + be32(1) + [1],
                                padTo: 256, pair: p)
    var g = ReplayGuard()
    #expect(throws: SealingError.openFailed) {
        try Envelope.open(forged, by: p.bob, from: p.alice.record, replay: &g, now: now)
    }
    // The same construction with alice's key inside opens: the test above fails for the right reason.
    let good = try handSealed(p.alice.signingKey.publicKey.bytes + MessageID.random().bytes + be(now) + be32(1) + [1],
                              padTo: 256, pair: p)
    #expect(try Envelope.open(good, by: p.bob, from: p.alice.record, replay: &g, now: now).body == [1])
}

@Test func replayedEnvelopeIsRefused() throws {
    let p = Pair()
    let sealed = try Envelope.seal(body: [1], from: p.alice, to: p.bob.record, now: now).bytes
    var g = ReplayGuard()
    _ = try Envelope.open(sealed, by: p.bob, from: p.alice.record, replay: &g, now: now)
    #expect(throws: SealingError.replayed) {
        try Envelope.open(sealed, by: p.bob, from: p.alice.record, replay: &g, now: now + 1)
    }
    var tight = ReplayGuard(window: 1000)
    #expect(throws: SealingError.replayed) {
        try Envelope.open(sealed, by: p.bob, from: p.alice.record, replay: &tight, now: now + 1001)
    }
}

@Test func bothSidesDeriveTheSameStreamSecret() throws {
    let p = Pair()
    let a = try Envelope.seal(body: [1], from: p.alice, to: p.bob.record, now: now)
    let b = try Envelope.seal(body: [1], from: p.alice, to: p.bob.record, now: now)
    #expect(a.streamSecret != b.streamSecret)
    #expect(a.messageID != b.messageID)
}
