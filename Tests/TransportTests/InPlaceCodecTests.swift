import Testing
@testable import Transport

/// `next(from:)` (frames parsed in place from the read buffer, only a frame's unfinished tail
/// buffered) must give exactly the events of `feed` + `next` for every split of the input.
private func inPlaceEvents(_ codec: inout WebSocketCodec, _ bytes: [UInt8], splits: [Int]) -> [WebSocketCodec.Event] {
    var out: [WebSocketCodec.Event] = []
    var i = 0, k = 0
    while i < bytes.count {
        let n = min(splits[k % splits.count], bytes.count - i)
        let piece = Array(bytes[i..<(i + n)])
        i += n; k += 1
        piece.withUnsafeBytes { p in
            var input = p
            while true { let e = codec.next(from: &input); if e == .needMore { break }; out.append(e) }
            #expect(input.isEmpty)
        }
    }
    return out
}

private let mixed: [UInt8] = {
    let big = (0..<20000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    return rawFrame(2, [1, 2, 3]) + rawFrame(9, [9, 9]) + rawFrame(2, big)
        + rawFrame(1, Array("héllo".utf8), fin: false) + rawFrame(10, []) + rawFrame(0, Array(" wörld".utf8))
        + rawFrame(2, []) + rawFrame(2, Array(big.prefix(126))) + rawFrame(2, Array(big.prefix(70000 % 20000 + 5)))
        + rawFrame(8, [0x03, 0xE8])
}()

@Test(arguments: [[Int.max], [1], [2, 3], [13, 1, 4096], [16384], [65536, 7], [15, 16, 17]])
func inPlaceParsingGivesTheEventsOfBufferedParsing(splits: [Int]) {
    var buffered = WebSocketCodec(role: .server, maxMessageSize: 1 << 20)
    let expected = events(&buffered, mixed, splits: [Int.max])
    #expect(expected.count == 9)
    var inPlace = WebSocketCodec(role: .server, maxMessageSize: 1 << 20)
    #expect(inPlaceEvents(&inPlace, mixed, splits: splits) == expected)
    #expect(inPlace.bufferedBytes == 0)
}

@Test func inPlaceParsingKeepsTheTailOfAnUnfinishedFrame() {
    let frame = rawFrame(2, [UInt8](repeating: 5, count: 300))
    var c = WebSocketCodec(role: .server, maxMessageSize: 1 << 20)
    #expect(inPlaceEvents(&c, Array(frame.prefix(100)), splits: [Int.max]).isEmpty)
    #expect(c.bufferedBytes == 100)
    #expect(inPlaceEvents(&c, Array(frame.dropFirst(100)), splits: [Int.max]) == [.binary([UInt8](repeating: 5, count: 300))])
    #expect(c.bufferedBytes == 0)
}

@Test func inPlaceParsingRefusesWhatBufferedParsingRefuses() {
    var c = WebSocketCodec(role: .server, maxMessageSize: 10)
    #expect(inPlaceEvents(&c, rawFrame(2, [UInt8](repeating: 0, count: 11)), splits: [Int.max]) == [.fail(.messageTooBig, "message too big")])
    var u = WebSocketCodec(role: .server, maxMessageSize: 10)
    #expect(inPlaceEvents(&u, rawFrame(2, [1], masked: false), splits: [1]) == [.fail(.protocolError, "client frame not masked")])
}

@Test(arguments: [0, 1, 7, 8, 9, 16, 31, 32, 33, 39, 63, 64, 65, 1000, 16_389])
func unmaskingCopyEqualsMaskingInPlace(length: Int) {
    let key: (UInt8, UInt8, UInt8, UInt8) = (0x37, 0xFA, 0x21, 0x3D)
    let src = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) }
    var expected = src
    applyMask(&expected, key)
    #expect(src.withUnsafeBufferPointer { unmaskedCopy($0, key) } == expected)
    #expect(src.withUnsafeBufferPointer { unmaskedCopy($0, nil) } == src)
}
