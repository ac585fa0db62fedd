// Small byte helpers shared by the codecs of this module.

extension Array where Element == UInt8 {
    /// Appends `value` as 8 bytes, big-endian.
    mutating func appendBigEndian(_ value: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) { append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    /// Appends `value` as 4 bytes, big-endian.
    mutating func appendBigEndian(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }
}

/// Reads a big-endian unsigned integer of `count` bytes starting at `offset`.
func readBigEndian<C: Collection<UInt8>>(_ bytes: C, at offset: Int, count: Int) -> UInt64 where C.Index == Int {
    var value: UInt64 = 0
    for i in offset..<(offset + count) { value = value << 8 | UInt64(bytes[i]) }
    return value
}

/// `a XOR b` for equal-length arrays.
func xor(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
    precondition(a.count == b.count)
    return zip(a, b).map { $0 ^ $1 }
}

/// A 12-byte nonce: `base XOR (0^4 || counter as u64 big-endian)` (RFC 9180 section 5.2).
func counterNonce(base: [UInt8], counter: UInt64) -> [UInt8] {
    var padded = [UInt8](repeating: 0, count: 4)
    padded.appendBigEndian(counter)
    return xor(base, padded)
}
