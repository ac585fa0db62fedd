// embed-request (0x50) and embed-result (0x51): round trips, exact lengths, every limit, and
// a result larger than one frame crossing as parts.
import Testing
@testable import Wire

struct EmbeddingMessageTests {
    let id = Bytes16.repeating(0x42)

    @Test func aRequestRoundTripsWithEmptyAndUnicodeInputs() throws {
        let r = AppMessage.embedRequest(.init(requestID: id, model: "nomic-embed-text", inputs: ["a", "", "Grüß dich 🙂"]))
        let bytes = try r.encode()
        #expect(bytes[0] == 0x50)
        #expect(try AppMessage.decode(bytes) == r)
    }

    @Test func aResultRoundTripsBitForBit() throws {
        let v: [[Float]] = [[1, -0.0, .leastNonzeroMagnitude], [.greatestFiniteMagnitude, -2.5, 0.1]]
        let r = AppMessage.embedResult(.init(requestID: id, model: "m", promptTokens: 9, vectors: v))
        let bytes = try r.encode()
        #expect(bytes[0] == 0x51)
        guard case .embedResult(let back) = try AppMessage.decode(bytes) else { Issue.record("type"); return }
        #expect(back.vectors.flatMap { $0.map(\.bitPattern) } == v.flatMap { $0.map(\.bitPattern) })
        #expect(back.promptTokens == 9 && back.model == "m")
        // Big-endian binary32: 1.0 is 3f800000, right after the header.
        let header = 1 + 16 + 2 + 1 + 4 + 2 + 4
        #expect(Array(bytes[header..<header + 4]) == [0x3F, 0x80, 0, 0])
        #expect(bytes.count == header + 6 * 4)
    }

    @Test func requestLimitsAreRefusedBothWays() throws {
        #expect(throws: WireError.invalidValue(field: "embedding input count", value: 0)) {
            try AppMessage.embedRequest(.init(requestID: id, model: "m", inputs: [])).encode()
        }
        let many = [String](repeating: "x", count: Limits.maxEmbedInputs + 1)
        #expect(throws: WireError.tooLarge(field: "embedding inputs", length: Limits.maxEmbedInputs + 1, limit: Limits.maxEmbedInputs)) {
            try AppMessage.embedRequest(.init(requestID: id, model: "m", inputs: many)).encode()
        }
        let big = String(repeating: "x", count: Limits.maxEmbedInputBytes + 1)
        #expect(throws: WireError.self) { try AppMessage.embedRequest(.init(requestID: id, model: "m", inputs: [big])).encode() }
        // Decoding: an input longer than the limit, declared in its length prefix.
        var w = ByteWriter()
        w.u8(0x50); w.fixed(id); try w.string(2, "m", "model"); w.u16(1); w.u32(UInt32(Limits.maxEmbedInputBytes + 1))
        w.raw([UInt8](repeating: 0x78, count: Limits.maxEmbedInputBytes + 1))
        #expect(throws: WireError.tooLarge(field: "embedding input", length: Limits.maxEmbedInputBytes + 1, limit: Limits.maxEmbedInputBytes)) {
            try AppMessage.decode(w.bytes)
        }
        // The largest input is fine.
        let edge = String(repeating: "y", count: Limits.maxEmbedInputBytes)
        let ok = AppMessage.embedRequest(.init(requestID: id, model: "m", inputs: [edge]))
        #expect(try AppMessage.decode(try ok.encode()) == ok)
    }

    @Test func resultShapesAreRefusedBothWays() throws {
        func result(_ v: [[Float]]) -> AppMessage { .embedResult(.init(requestID: id, model: "m", promptTokens: 0, vectors: v)) }
        #expect(throws: WireError.self) { try result([]).encode() }
        #expect(throws: WireError.self) { try result([[]]).encode() }
        #expect(throws: WireError.self) { try result([[1, 2], [3]]).encode() }  // ragged
        #expect(throws: WireError.self) { try result([[.nan]]).encode() }
        #expect(throws: WireError.self) { try result([[.infinity]]).encode() }
        let good = try result([[1, 2], [3, 4]]).encode()
        #expect(throws: WireError.truncated(field: "embedding vectors")) { try AppMessage.decode(Array(good.dropLast())) }
        #expect(throws: WireError.trailingBytes(count: 1)) { try AppMessage.decode(good + [0]) }
        // Dimensions × count over the bound: refused from the header alone, before any allocation.
        var w = ByteWriter()
        w.u8(0x51); w.fixed(id); try w.string(2, "m", "model"); w.u32(0); w.u16(2048); w.u32(2049)
        #expect(throws: WireError.tooLarge(field: "embedding vectors (bytes)", length: 2048 * 2049 * 4, limit: Limits.maxEmbedResultBytes)) {
            try AppMessage.decode(w.bytes)
        }
        var d = ByteWriter()
        d.u8(0x51); d.fixed(id); try d.string(2, "m", "model"); d.u32(0); d.u16(1); d.u32(UInt32(Limits.maxEmbedDimensions + 1))
        #expect(throws: WireError.tooLarge(field: "embedding dimensions", length: Limits.maxEmbedDimensions + 1, limit: Limits.maxEmbedDimensions)) {
            try AppMessage.decode(d.bytes)
        }
    }

    @Test func aLargeResultCrossesAsPartsAndReassembles() throws {
        // 64 vectors of 1,024: 256 KiB of floats, eight parts of a 64 KiB relay.
        let v = (0..<64).map { i in (0..<1024).map { Float(i * 1024 + $0) / 7 } }
        let message = AppMessage.embedResult(.init(requestID: id, model: "m", promptTokens: 64, vectors: v))
        let bytes = try message.encode()
        let parts = try Splitter(maxPartPayload: 32_683).split(bytes, messageID: .repeating(9))
        #expect(parts.count > 1)
        var r = Reassembler()
        var whole: [UInt8]?
        for (i, p) in parts.reversed().enumerated() {
            guard case .part(let back) = try AppMessage.decode(try AppMessage.part(p).encode()) else { Issue.record("part"); return }
            if let m = try r.add(back, nowMs: UInt64(i)) { whole = m }
        }
        let got = try #require(whole)
        #expect(try AppMessage.decode(got) == message)
    }
}
