import Testing
@testable import Sealing
import Signing

func be(_ v: UInt64) -> [UInt8] { var out: [UInt8] = []; out.appendBigEndian(v); return out }
func be32(_ v: UInt32) -> [UInt8] { var out: [UInt8] = []; out.appendBigEndian(v); return out }

/// An envelope from alice to bob around `plaintext` (zero-padded to `padTo` bytes), sealed by hand
/// with the right HPKE keys and info: HPKE opens it, so only the inner checks can refuse it.
func handSealed(_ plaintext: [UInt8], padTo size: Int, pair p: Pair) throws -> [UInt8] {
    let context = try HPKE.Sender(recipientKey: p.bob.hpkeKey.publicKey,
                                  info: Envelope.info(sender: p.alice.signingKey.publicKey, recipient: p.bob.signingKey.publicKey),
                                  senderKey: p.alice.hpkeKey)
    let padded = plaintext + [UInt8](repeating: 0, count: max(0, size - plaintext.count))
    return [Envelope.version] + context.encapsulatedKey + (try context.seal(padded, aad: [Envelope.version]))
}

/// alice's header for bob: her key, a fresh id, `now`, and the claimed body length.
private func header(_ p: Pair, length: UInt32) -> [UInt8] {
    p.alice.signingKey.publicKey.bytes + MessageID.random().bytes + be(now) + be32(length)
}

@Test func bucketsAreTheSpecifiedSizes() {
    let large = (2...16).map { $0 * 65536 }
    #expect(EnvelopeFormat.buckets == [256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536] + large)
    #expect(Envelope.maxBodyBytes == (1 << 20) - 60)
    // (body length, envelope size): each bucket's last fit and first overflow.
    let cases: [(Int, Int?)] = [(0, 305), (196, 305), (197, 561), (452, 561), (453, 1073), (16324, 16433),
                                (16 * 1024, 32817), (65476, 65585), (65477, 131_121), (131_012, 131_121),
                                (131_013, 196_657), (Envelope.maxBodyBytes, 1_048_625), (Envelope.maxBodyBytes + 1, nil)]
    for (body, size) in cases { #expect(Envelope.sealedSize(bodyCount: body) == size, "body \(body)") }
}

@Test func largestBodyForTheRelayLimit() {
    #expect(Envelope.largestBody(sealedLimit: 65536) == 32708)  // 65536-byte bucket is 49 bytes too big
    #expect(Envelope.largestBody(sealedLimit: 65585) == 65476)
    #expect(Envelope.largestBody(sealedLimit: 304) == 0)
    #expect(Envelope.largestBody(sealedLimit: 305) == 196)
    #expect(Envelope.largestBody(sealedLimit: .max) == Envelope.maxBodyBytes)
}

@Test func sealedSizeHidesTheBodyLength() throws {
    let p = Pair()
    var g = ReplayGuard()
    for (small, big) in [(1, 196), (197, 452), (5000, 8132), (70_000, 131_012)] {
        let a = try Envelope.seal(body: [UInt8](repeating: 1, count: small), from: p.alice, to: p.bob.record, now: now)
        let b = try Envelope.seal(body: [UInt8](repeating: 2, count: big), from: p.alice, to: p.bob.record, now: now)
        #expect(a.bytes.count == b.bytes.count)
        #expect(a.bytes.count == Envelope.sealedSize(bodyCount: small))
        #expect(try Envelope.open(b.bytes, by: p.bob, from: p.alice.record, replay: &g, now: now).body.count == big)
    }
}

@Test func handSealedCanonicalEnvelopeOpens() throws {
    // The control for the refusals below: the same construction with a valid layout opens.
    let p = Pair()
    var g = ReplayGuard()
    let good = try handSealed(header(p, length: 3) + [7, 8, 9], padTo: 256, pair: p)
    #expect(try Envelope.open(good, by: p.bob, from: p.alice.record, replay: &g, now: now).body == [7, 8, 9])
    let full = try handSealed(header(p, length: 196) + [UInt8](repeating: 5, count: 196), padTo: 256, pair: p)
    #expect(try Envelope.open(full, by: p.bob, from: p.alice.record, replay: &g, now: now).body.count == 196)
}

@Test func nonZeroPaddingIsRefused() throws {
    let p = Pair()
    for position in [63, 100, 255] {  // right after the body, in the middle, the last byte
        var plaintext = header(p, length: 3) + [7, 8, 9] + [UInt8](repeating: 0, count: 256 - 63)
        plaintext[position] = 1
        let bad = try handSealed(plaintext, padTo: 256, pair: p)
        var g = ReplayGuard()
        #expect(throws: SealingError.openFailed) { try Envelope.open(bad, by: p.bob, from: p.alice.record, replay: &g, now: now) }
    }
}

@Test func lengthBeyondTheBucketIsRefused() throws {
    let p = Pair()
    for length: UInt32 in [197, 1000, .max] {
        let bad = try handSealed(header(p, length: length), padTo: 256, pair: p)
        var g = ReplayGuard()
        #expect(throws: SealingError.openFailed) { try Envelope.open(bad, by: p.bob, from: p.alice.record, replay: &g, now: now) }
    }
}

@Test func plaintextOutsideTheBucketsIsRefused() throws {
    // Authentic, zero-padded, length fits, but the size is no bucket (or too short for a header).
    let p = Pair()
    for size in [59, 60, 255, 257, 300, 65536 + 256] {
        let body = min(3, max(0, size - 60))
        let plaintext = Array((header(p, length: UInt32(body)) + [UInt8](repeating: 7, count: body)).prefix(size))
        let bad = try handSealed(plaintext, padTo: size, pair: p)
        var g = ReplayGuard()
        #expect(throws: SealingError.openFailed, "size \(size)") {
            try Envelope.open(bad, by: p.bob, from: p.alice.record, replay: &g, now: now)
        }
    }
}

@Test func bodyRangeOfPaddedPlaintexts() throws {
    let p = Pair()
    let id = MessageID.random()
    let key = p.alice.signingKey.publicKey
    let padded = EnvelopeFormat.pad(sender: key, id: id, timestamp: now, body: [1, 2, 3], bucket: 256)
    #expect(padded.count == 256)
    #expect(Array(padded[0..<32]) == key.bytes && Array(padded[32..<48]) == id.bytes)
    #expect(Array(padded[48..<60]) == be(now) + be32(3))
    #expect(EnvelopeFormat.bodyRange(in: padded) == 60..<63)
    #expect(EnvelopeFormat.bodyRange(in: padded + [0]) == nil)        // 257: no bucket
    #expect(EnvelopeFormat.bodyRange(in: Array(padded.dropLast())) == nil)
    var dirty = padded; dirty[200] = 0x80
    #expect(EnvelopeFormat.bodyRange(in: dirty) == nil)
    var long = padded; long[59] = 197                                   // 60 + 197 > 256
    #expect(EnvelopeFormat.bodyRange(in: long) == nil)
    long[59] = 196
    #expect(EnvelopeFormat.bodyRange(in: long) == 60..<256)             // exactly full: no padding at all
}
