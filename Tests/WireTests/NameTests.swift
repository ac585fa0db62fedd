// A join's account name reaches the host's log and `grants list`: it is bounded like a device
// name and holds no control character (issue 15, hole 11).
import Testing
@testable import Wire

/// A join encoded by hand, so the encoder's own checks cannot hide the decoder's.
private func rawJoin(_ name: [UInt8]) -> [UInt8] {
    [0x31] + [UInt8](repeating: 7, count: 32) + [0, 0, 0, 2, 0xDE, 0xAD]
        + [UInt8(name.count >> 8), UInt8(name.count & 0xFF)] + name
}

@Test func aJoinAccountNameWithControlCharactersIsRefused() throws {
    for name in ["ana\nhomebase: join granted", "\u{1b}[2J", "\u{0}", "del\u{7f}", "c1\u{85}", "\u{202e}gnp", "x\u{2029}y"] {
        #expect(throws: WireError.self, "\(name.debugDescription)") { try AppMessage.decode(rawJoin(Array(name.utf8))) }
    }
    #expect(throws: Never.self) { try AppMessage.decode(rawJoin(Array("Ana Müller 👩‍💻".utf8))) }
}

@Test func aJoinAccountNameIsBoundedLikeADeviceName() throws {
    #expect(throws: Never.self) { try AppMessage.decode(rawJoin([UInt8](repeating: 0x61, count: 64))) }
    #expect(throws: WireError.self) { try AppMessage.decode(rawJoin([UInt8](repeating: 0x61, count: 65))) }
    #expect(throws: WireError.self) { try AppMessage.decode(rawJoin([])) }
    // The sender learns first.
    let long = AppMessage.join(.init(secretProof: .repeating(7), deviceRecord: [1], accountName: String(repeating: "a", count: 65)))
    #expect(throws: WireError.self) { try long.encode() }
    let newline = AppMessage.join(.init(secretProof: .repeating(7), deviceRecord: [1], accountName: "a\nb"))
    #expect(throws: WireError.self) { try newline.encode() }
}
