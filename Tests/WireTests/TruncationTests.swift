// Every prefix of every valid encoding must fail cleanly (never crash, never succeed), and
// bytes after the end must be refused: encodings are exact.
import Testing
@testable import Wire

@Test(arguments: Sample.frames)
func everyFramePrefixFails(_ frame: RelayFrame) throws {
    let bytes = try frame.encode()
    // Cutting the big frame at every offset is slow: step through its sealed bytes.
    let step = bytes.count > 4096 ? 997 : 1
    for n in stride(from: 0, to: bytes.count, by: step) {
        #expect(throws: WireError.self, "prefix \(n)") { try RelayFrame.decode(Array(bytes[..<n])) }
    }
    #expect(throws: WireError.trailingBytes(count: 1)) { try RelayFrame.decode(bytes + [0]) }
}

@Test(arguments: Sample.frames)
func everyBodyPrefixFailsWithAnHonestLength(_ frame: RelayFrame) throws {
    // The header claims exactly what is there, so the body decoder itself must spot the cut.
    let bytes = try frame.encode()
    guard bytes.count < 4096 else { return }
    let endsWithSealed: Bool = switch frame { case .send, .receive: true; default: false }
    let fixedEnd: Int = switch frame {
    case .send(let s): bytes.count - s.sealed.count
    case .receive(let r): bytes.count - r.sealed.count
    default: bytes.count
    }
    for n in RelayFrame.headerSize..<fixedEnd {
        var cut = Array(bytes[..<n])
        let length = n - RelayFrame.headerSize
        cut[2] = 0; cut[3] = 0; cut[4] = UInt8(length >> 8); cut[5] = UInt8(length & 0xFF)
        #expect(throws: WireError.self, "body cut at \(length)") { try RelayFrame.decode(cut) }
    }
    if !endsWithSealed {
        var long = bytes + [0]
        let length = long.count - RelayFrame.headerSize
        long[4] = UInt8(length >> 8); long[5] = UInt8(length & 0xFF)
        #expect(throws: WireError.trailingBytes(count: 1)) { try RelayFrame.decode(long) }
    }
}

@Test(arguments: Sample.messages)
func everyMessagePrefixFails(_ message: AppMessage) throws {
    let bytes = try message.encode()
    // A part's bytes run to the end of the envelope: only cuts inside its header must fail.
    let end = Sample.endsWithRest(message) ? 1 + Limits.partOverhead - 1 : bytes.count
    // A pair-welcome's relay proof is an optional tail: cut just before it, the welcome is one without.
    var bare: (Int, AppMessage)?
    if case .pairWelcome(var w) = message, w.relayProof != nil {
        w.relayProof = nil
        bare = (try AppMessage.pairWelcome(w).encode().count, .pairWelcome(w))
    }
    for n in 0..<end {
        if let (cut, without) = bare, n == cut {
            #expect(try AppMessage.decode(Array(bytes[..<n])) == without)
            continue
        }
        #expect(throws: WireError.self, "prefix \(n)") { try AppMessage.decode(Array(bytes[..<n])) }
    }
    if !Sample.endsWithRest(message) {
        #expect(throws: WireError.trailingBytes(count: 2)) { try AppMessage.decode(bytes + [0, 0]) }
    }
}
