import Testing
@testable import Transport

/// The relay's forwarding path unmasks every client frame with `applyMask` (8 bytes per step):
/// it must equal the byte-at-a-time definition of RFC 6455 section 5.3 at every length and phase.
@Test func wordWiseMaskingEqualsTheBytewiseDefinition() {
    let key: (UInt8, UInt8, UInt8, UInt8) = (0x9d, 0x21, 0x00, 0xff)
    let k = [key.0, key.1, key.2, key.3]
    for length in 0..<41 {
        for offset in 0..<4 {
            let original = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            var fast = original
            applyMask(&fast, key, offset: offset)
            let slow = original.enumerated().map { $0.element ^ k[($0.offset + offset) & 3] }
            #expect(fast == slow, "length \(length) offset \(offset)")
            applyMask(&fast, key, offset: offset)
            #expect(fast == original) // masking twice is the identity
        }
    }
}
