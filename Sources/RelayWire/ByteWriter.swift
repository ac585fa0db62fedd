// The big-endian writer mirroring ByteReader. Encoding checks the same limits the decoder
// enforces, so whatever encodes also decodes.

package struct ByteWriter {
    package private(set) var bytes: [UInt8] = []
    package init() {}
    /// A writer that starts with a signing domain and its 0x00 separator: what every signed
    /// transcript and record body begins with, so no two kinds of signed bytes can collide.
    package init(domain: [UInt8]) { bytes = domain + [0] }

    package mutating func u8(_ v: UInt8) { bytes.append(v) }
    package mutating func u16(_ v: UInt16) { uint(UInt64(v), 2) }
    package mutating func u32(_ v: UInt32) { uint(UInt64(v), 4) }
    package mutating func u64(_ v: UInt64) { uint(v, 8) }

    private mutating func uint(_ v: UInt64, _ size: Int) {
        for i in stride(from: size - 1, through: 0, by: -1) { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) }
    }

    package mutating func raw<C: Collection>(_ b: C) where C.Element == UInt8 { bytes.append(contentsOf: b) }
    package mutating func fixed<T: FixedBytes>(_ v: T) { bytes.append(contentsOf: v.bytes) }
    package mutating func bool(_ v: Bool) { bytes.append(v ? 1 : 0) }

    /// Bytes behind a big-endian length prefix of `prefix` bytes (1, 2 or 4).
    package mutating func prefixed<C: Collection>(_ prefix: Int, _ b: C, limit: Int, _ field: String) throws(WireError)
    where C.Element == UInt8 {
        let max = min(limit, prefix >= 8 ? Int.max : (1 << (8 * prefix)) - 1)
        guard b.count <= max else { throw .tooLarge(field: field, length: b.count, limit: max) }
        uint(UInt64(b.count), prefix)
        bytes.append(contentsOf: b)
    }

    package mutating func string(_ prefix: Int, _ s: String, limit: Int = .max, _ field: String) throws(WireError) {
        try prefixed(prefix, s.utf8, limit: limit, field)
    }

    /// A u16 item count.
    package mutating func count(_ n: Int, _ field: String) throws(WireError) {
        guard n <= Int(UInt16.max) else { throw .tooLarge(field: field, length: n, limit: Int(UInt16.max)) }
        u16(UInt16(n))
    }

    /// Trailing bytes (the last field of a body), up to `limit`.
    package mutating func rest(_ b: [UInt8], limit: Int, _ field: String) throws(WireError) {
        guard b.count <= limit else { throw .tooLarge(field: field, length: b.count, limit: limit) }
        bytes.append(contentsOf: b)
    }
}
