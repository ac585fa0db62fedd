// The incremental parser: one byte at a time, random splits, several frames per chunk,
// early oversize failure, sticky failure.
import Testing
@testable import Wire

private func drain(_ parser: inout FrameParser, _ chunk: [UInt8], into out: inout [RelayFrame]) -> WireError? {
    var action = parser.parse(chunk)
    while case .frame(let f) = action { out.append(f); action = parser.next() }
    if case .fail(let e) = action { return e }
    return nil
}

private let smallFrames = Sample.frames.filter { (try? $0.encode().count).map { $0 < 4096 } ?? false }

@Test func oneByteAtATime() throws {
    let stream = try smallFrames.flatMap { try $0.encode() }
    var parser = FrameParser()
    var got: [RelayFrame] = []
    for b in stream { #expect(drain(&parser, [b], into: &got) == nil) }
    #expect(got == smallFrames)
    #expect(parser.bufferedCount == 0)
}

@Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
func randomSplits(seed: UInt64) throws {
    var rng = SplitMix64(seed: seed)
    let frames = Sample.frames + Sample.frames.shuffled(using: &rng)
    let stream = try frames.flatMap { try $0.encode() }
    var parser = FrameParser()
    var got: [RelayFrame] = []
    var i = 0
    while i < stream.count {
        let n = Int.random(in: 0...9000, using: &rng)
        let j = min(stream.count, i + n)
        #expect(drain(&parser, Array(stream[i..<j]), into: &got) == nil)
        i = j
    }
    #expect(got == frames)
}

@Test func wholeStreamInOneChunk() throws {
    let stream = try Sample.frames.flatMap { try $0.encode() }
    var parser = FrameParser()
    var got: [RelayFrame] = []
    #expect(drain(&parser, stream, into: &got) == nil)
    #expect(got == Sample.frames)
    #expect(parser.next() == .needMore)
}

@Test func oversizeFailsBeforeTheBodyAndStaysFailed() throws {
    var parser = FrameParser()
    #expect(parser.parse(try RelayFrame.ping(1).encode()) == .frame(.ping(1)))
    let expected = WireError.tooLarge(field: "frame body", length: Limits.maxFrameBody + 1, limit: Limits.maxFrameBody)
    #expect(parser.parse([0x10, 0, 0, 1, 1]) == .needMore)
    #expect(parser.parse([1]) == .fail(expected))
    #expect(parser.parse(try RelayFrame.ping(2).encode()) == .fail(expected))
    #expect(parser.bufferedCount == 0)
}

@Test func malformedBodyFailsTheStream() throws {
    var bad = try Sample.frames[6].encode()
    bad[6 + 32] = 9
    var parser = FrameParser()
    var got: [RelayFrame] = []
    let error = drain(&parser, try RelayFrame.queueEmpty.encode() + bad + (try RelayFrame.ping(3).encode()), into: &got)
    #expect(got == [.queueEmpty])
    #expect(error == .badClass(9))
}

@Test func unknownFramesInAStreamAreSkipped() throws {
    var parser = FrameParser()
    var got: [RelayFrame] = []
    let stream: [UInt8] = [0x99, 0, 0, 0, 0, 2, 7, 7] + (try RelayFrame.pong(4).encode())
    #expect(drain(&parser, stream, into: &got) == nil)
    #expect(got == [.unknown(type: 0x99), .pong(4)])
}
