import Testing
@testable import Sealing
import Signing

func pair() throws -> (StreamSealer, StreamOpener) {
    let secret = SecretBytes.random(count: 32)
    return (try StreamSealer(secret: secret), try StreamOpener(secret: secret))
}

@Test func chunksRoundTripInOrder() throws {
    let (sealer, opener) = try pair()
    let parts: [[UInt8]] = [Array("Hel".utf8), [], [UInt8](repeating: 7, count: 16_379), Array("lo".utf8)]
    var got: [[UInt8]] = []
    for (i, part) in parts.enumerated() {
        let chunk = try sealer.seal(part, final: i == parts.count - 1)
        let opened = try opener.open(chunk)
        got.append(opened.data)
        #expect(opened.isFinal == (i == parts.count - 1))
    }
    #expect(got == parts)
    #expect(opener.isFinished && sealer.isFinished)
    try opener.finish()
}

@Test func chunkSizesAreBuckets() throws {
    let (sealer, _) = try pair()
    let expectations = [(0, 64), (59, 64), (60, 128), (123, 128), (124, 256), (1000, 1024), (16_379, 16_384)]
    for (data, bucket) in expectations {
        #expect(try sealer.seal([UInt8](repeating: 1, count: data)).count == 8 + bucket + 16, "\(data) bytes")
    }
    #expect(throws: SealingError.tooLarge) { try sealer.seal([UInt8](repeating: 1, count: 16_380)) }
}

@Test func openerClassifiesEveryMisdelivery() throws {
    let (sealer, opener) = try pair()
    let c = try (0..<4).map { try sealer.seal([UInt8($0)], final: $0 == 3) }
    _ = try opener.open(c[0])
    #expect(throws: SealingError.duplicate) { try opener.open(c[0]) }
    #expect(throws: SealingError.dropped) { try opener.open(c[2]) }
    #expect(throws: SealingError.reordered) { try opener.open(c[1]) }
    #expect(throws: SealingError.truncated) { try opener.finish() }
}

@Test func finalEndsTheStream() throws {
    let (sealer, opener) = try pair()
    let last = try sealer.seal([1], final: true)
    #expect(throws: SealingError.afterFinal) { try sealer.seal([2]) }
    _ = try opener.open(last)
    #expect(throws: SealingError.afterFinal) { try opener.open(last) }
    // A chunk sealed after the final one (by a buggy or hostile peer with the key) too.
    let secret = SecretBytes.random(count: 32)
    let s2 = try StreamSealer(secret: secret), o2 = try StreamOpener(secret: secret)
    _ = try o2.open(s2.seal([1], final: true))
    let s3 = try StreamSealer(secret: secret)
    _ = try s3.seal([9])
    #expect(throws: SealingError.afterFinal) { try o2.open(s3.seal([2])) }
}

@Test func tamperedChunksFailToOpen() throws {
    let (sealer, opener) = try pair()
    let chunk = try sealer.seal(Array("token".utf8))
    for i in 0..<chunk.count {
        var bad = chunk
        bad[i] ^= 0x04
        #expect(throws: SealingError.openFailed) { try opener.open(bad) }
    }
    #expect(throws: SealingError.openFailed) { try opener.open(chunk.dropLast()) }
    #expect(throws: SealingError.openFailed) { try StreamOpener(secret: .random(count: 32)).open(chunk) }
    #expect(try opener.open(chunk).data == Array("token".utf8))  // refused chunks changed nothing
}

@Test func streamFollowsFromTheEnvelope() throws {
    let alice = try DeviceIdentity.generate(name: "guest", now: 1)
    let bob = try DeviceIdentity.generate(name: "homebase", now: 1)
    let sealed = try Envelope.seal(body: Array("prompt".utf8), from: alice, to: bob.record, now: 10)
    var g = ReplayGuard()
    let opened = try Envelope.open(sealed.bytes, by: bob, from: alice.record, replay: &g, now: 10)
    let reply = try StreamSealer(secret: opened.streamSecret)
    let reader = try StreamOpener(secret: sealed.streamSecret)
    #expect(try reader.open(reply.seal(Array("answer".utf8), final: true)).data == Array("answer".utf8))
}

@Test func streamSecretMustBe32Bytes() {
    #expect(throws: SealingError.invalidKey) { try StreamSealer(secret: .random(count: 31)) }
    #expect(throws: SealingError.invalidKey) { try StreamOpener(secret: .random(count: 33)) }
}
