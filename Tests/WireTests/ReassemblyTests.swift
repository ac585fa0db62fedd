// Splitter and Reassembler: shuffled, duplicated, missing, inconsistent and oversize parts.
import Testing
@testable import Wire

private func message(_ n: Int, seed: UInt64) -> [UInt8] {
    var rng = SplitMix64(seed: seed)
    return (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
}

@Test func splitSizes() throws {
    let s = Splitter(maxPartPayload: 4)
    #expect(try s.split([], messageID: Sample.id) == [.init(messageID: Sample.id, index: 0, count: 1, totalLength: 0, bytes: [])])
    let parts = try s.split([1, 2, 3, 4, 5, 6, 7, 8, 9], messageID: Sample.id)
    #expect(parts.map(\.bytes) == [[1, 2, 3, 4], [5, 6, 7, 8], [9]])
    #expect(parts.allSatisfy { $0.count == 3 && $0.totalLength == 9 })
    #expect(throws: WireError.tooLarge(field: "part count", length: 65_536, limit: 65_535)) {
        try Splitter(maxPartPayload: 1).split([UInt8](repeating: 0, count: 65_536), messageID: Sample.id)
    }
}

@Test(arguments: [1, 2, 3, 4] as [UInt64])
func shuffledPartsReassemble(seed: UInt64) throws {
    var rng = SplitMix64(seed: seed)
    let original = message(10_000 + Int(seed), seed: seed)
    let parts = try Splitter(maxPartPayload: 777).split(original, messageID: Sample.id).shuffled(using: &rng)
    var r = Reassembler()
    var done: [[UInt8]] = []
    for (i, p) in parts.enumerated() {
        // Each part travels encoded: decode it as the receiver would.
        guard case .part(let decoded) = try AppMessage.decode(try AppMessage.part(p).encode()) else { Issue.record("type"); return }
        if let m = try r.add(decoded, nowMs: UInt64(i)) { done.append(m) }
    }
    #expect(done == [original])
    #expect(r.inFlight == 0)
}

@Test func interleavedMessagesReassembleSeparately() throws {
    let a = message(50, seed: 9), b = message(70, seed: 10)
    let pa = try Splitter(maxPartPayload: 16).split(a, messageID: .repeating(1))
    let pb = try Splitter(maxPartPayload: 16).split(b, messageID: .repeating(2))
    var r = Reassembler()
    var done: [[UInt8]] = []
    for i in 0..<max(pa.count, pb.count) {
        for list in [pb, pa] where i < list.count {
            if let m = try r.add(list[i], nowMs: 0) { done.append(m) }
        }
    }
    #expect(done == [a, b])
}

@Test func duplicatePartIsReportedAndIgnored() throws {
    let original = message(30, seed: 1)
    let parts = try Splitter(maxPartPayload: 10).split(original, messageID: Sample.id)
    var r = Reassembler()
    #expect(try r.add(parts[0], nowMs: 0) == nil)
    #expect(throws: WireError.duplicatePart(index: 0)) { try r.add(parts[0], nowMs: 1) }
    #expect(try r.add(parts[2], nowMs: 2) == nil)
    #expect(try r.add(parts[1], nowMs: 3) == original)
}

@Test func missingPartsExpire() throws {
    let parts = try Splitter(maxPartPayload: 10).split(message(45, seed: 2), messageID: Sample.id)
    var r = Reassembler(configuration: .init(timeoutMs: 100))
    for i in [0, 2, 4] { #expect(try r.add(parts[i], nowMs: 1_000) == nil) }
    #expect(r.nextDeadlineMs == 1_100)
    #expect(r.expire(nowMs: 1_100).isEmpty)
    #expect(r.expire(nowMs: 1_101) == [.init(messageID: Sample.id, count: 5, missing: [1, 3])])
    #expect(r.inFlight == 0)
    #expect(r.nextDeadlineMs == nil)
}

@Test func inconsistentPartsDiscardTheMessage() throws {
    let id = Sample.id
    var r = Reassembler()
    #expect(try r.add(.init(messageID: id, index: 0, count: 3, totalLength: 30, bytes: [1]), nowMs: 0) == nil)
    #expect(throws: WireError.inconsistentParts) {
        try r.add(.init(messageID: id, index: 1, count: 4, totalLength: 30, bytes: [2]), nowMs: 0)
    }
    #expect(r.inFlight == 0)
    // Bytes that overrun the announced total.
    #expect(try r.add(.init(messageID: id, index: 0, count: 2, totalLength: 3, bytes: [1, 2]), nowMs: 0) == nil)
    #expect(throws: WireError.inconsistentParts) {
        try r.add(.init(messageID: id, index: 1, count: 2, totalLength: 3, bytes: [3, 4]), nowMs: 0)
    }
    // All parts present but short of the total.
    #expect(try r.add(.init(messageID: id, index: 0, count: 2, totalLength: 4, bytes: [1]), nowMs: 0) == nil)
    #expect(throws: WireError.inconsistentParts) {
        try r.add(.init(messageID: id, index: 1, count: 2, totalLength: 4, bytes: [2]), nowMs: 0)
    }
    #expect(r.inFlight == 0)
}

@Test func boundsAreEnforced() throws {
    var r = Reassembler(configuration: .init(maxMessageSize: 100, maxInFlight: 2, timeoutMs: 10))
    #expect(throws: WireError.tooLarge(field: "message", length: 101, limit: 100)) {
        try r.add(.init(messageID: .repeating(1), index: 0, count: 2, totalLength: 101, bytes: [1]), nowMs: 0)
    }
    for k: UInt8 in [1, 2] {
        #expect(try r.add(.init(messageID: .repeating(k), index: 0, count: 2, totalLength: 4, bytes: [1]), nowMs: 0) == nil)
    }
    #expect(throws: WireError.tooManyInFlight(limit: 2)) {
        try r.add(.init(messageID: .repeating(3), index: 0, count: 2, totalLength: 4, bytes: [1]), nowMs: 0)
    }
    // A single-part message needs no slot.
    #expect(try r.add(.init(messageID: .repeating(4), index: 0, count: 1, totalLength: 1, bytes: [7]), nowMs: 0) == [7])
    #expect(r.expire(nowMs: 11).count == 2)
    #expect(try r.add(.init(messageID: .repeating(3), index: 0, count: 2, totalLength: 4, bytes: [1]), nowMs: 12) == nil)
}

@Test func reassembledPartsDecodeAsTheMessage() throws {
    let big = AppMessage.chunk(requestID: Sample.id, text: String(repeating: "é", count: 40_000))
    let encoded = try big.encode()
    let parts = try Splitter(maxPartPayload: 65_536 - 256 - Limits.partOverhead).split(encoded, messageID: Sample.id)
    #expect(parts.count == 2)
    var r = Reassembler()
    var out: [UInt8]?
    for p in parts.reversed() { out = try r.add(p, nowMs: 0) }
    #expect(try AppMessage.decode(out ?? []) == big)
}
