// Decoders are total: random bytes and mutated valid encodings give a value or a WireError,
// never a crash; whatever decodes re-encodes to something that decodes to the same value.
import Testing
@testable import Wire

private func mutate(_ bytes: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
    var b = bytes
    for _ in 0..<Int.random(in: 1...4, using: &rng) {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0 where !b.isEmpty: b[Int.random(in: 0..<b.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
        case 1 where !b.isEmpty: b.remove(at: Int.random(in: 0..<b.count, using: &rng))
        case 2: b.insert(UInt8.random(in: 0...255, using: &rng), at: Int.random(in: 0...b.count, using: &rng))
        default: if !b.isEmpty { b[Int.random(in: 0..<b.count, using: &rng)] ^= 0x80 }
        }
    }
    return b
}

@Test func mutatedFramesNeverCrash() throws {
    var rng = SplitMix64(seed: 42)
    let seeds = try Sample.frames.map { try $0.encode() }.filter { $0.count < 4096 }
    var decoded = 0
    for _ in 0..<20_000 {
        let input = mutate(seeds.randomElement(using: &rng)!, &rng)
        guard let frame = try? RelayFrame.decode(input) else { continue }
        decoded += 1
        #expect(try RelayFrame.decode(try frame.encode()) == frame)
    }
    #expect(decoded > 0)
}

@Test func mutatedMessagesNeverCrash() throws {
    var rng = SplitMix64(seed: 7)
    let seeds = try Sample.messages.map { try $0.encode() }
    var decoded = 0
    for _ in 0..<20_000 {
        let input = mutate(seeds.randomElement(using: &rng)!, &rng)
        guard let message = try? AppMessage.decode(input) else { continue }
        decoded += 1
        if case .unknown = message { continue }
        #expect(try AppMessage.decode(try message.encode()) == message)
    }
    #expect(decoded > 0)
}

@Test func randomBytesNeverCrash() {
    var rng = SplitMix64(seed: 1)
    var parser = FrameParser()
    var failures = 0
    for _ in 0..<5_000 {
        let input = (0..<Int.random(in: 0...64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        _ = try? RelayFrame.decode(input)
        _ = try? AppMessage.decode(input)
        if case .fail = parser.parse(input) { failures += 1; parser = FrameParser() }
    }
    #expect(failures > 0)
}
