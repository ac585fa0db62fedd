// A bounds-checked big-endian reader. Every read checks the remaining bytes first and every
// length is checked against its limit and the remaining bytes before anything is allocated:
// this is what makes the decoders total (any input gives a value or a WireError).

package struct ByteReader {
    private let bytes: ArraySlice<UInt8>
    private var position: Int

    package init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.position = bytes.startIndex
    }

    package var remaining: Int { bytes.endIndex - position }

    package mutating func take(_ n: Int, _ field: String) throws(WireError) -> ArraySlice<UInt8> {
        guard n >= 0, n <= remaining else { throw .truncated(field: field) }
        let out = bytes[position..<position + n]
        position += n
        return out
    }

    package mutating func u8(_ field: String) throws(WireError) -> UInt8 {
        try take(1, field).first!
    }

    package mutating func u16(_ field: String) throws(WireError) -> UInt16 {
        UInt16(truncatingIfNeeded: try uint(2, field))
    }

    package mutating func u32(_ field: String) throws(WireError) -> UInt32 {
        UInt32(truncatingIfNeeded: try uint(4, field))
    }

    package mutating func u64(_ field: String) throws(WireError) -> UInt64 {
        try uint(8, field)
    }

    private mutating func uint(_ size: Int, _ field: String) throws(WireError) -> UInt64 {
        var v: UInt64 = 0
        for b in try take(size, field) { v = v << 8 | UInt64(b) }
        return v
    }

    package mutating func fixed<T: FixedBytes>(_ field: String) throws(WireError) -> T {
        T(unchecked: Array(try take(T.count, field)))
    }

    /// A byte that must be 0 (false) or 1 (true).
    package mutating func bool(_ field: String) throws(WireError) -> Bool {
        switch try u8(field) {
        case 0: return false
        case 1: return true
        case let v: throw .invalidValue(field: field, value: Int(v))
        }
    }

    /// Bytes behind a big-endian length prefix of `prefix` bytes (1, 2 or 4).
    package mutating func prefixed(_ prefix: Int, limit: Int, _ field: String) throws(WireError) -> [UInt8] {
        let n = Int(try uint(prefix, field + " length"))
        guard n <= limit else { throw .tooLarge(field: field, length: n, limit: limit) }
        return Array(try take(n, field))
    }

    /// A UTF-8 string behind a length prefix of `prefix` bytes; invalid UTF-8 is an error.
    package mutating func string(_ prefix: Int, limit: Int = .max, _ field: String) throws(WireError) -> String {
        let raw = try prefixed(prefix, limit: limit, field)
        guard let s = String(validating: raw, as: UTF8.self) else { throw .invalidUTF8(field: field) }
        return s
    }

    /// A u16 item count, checked against the remaining bytes (each item takes at least
    /// `minItemSize`) so that a list can never reserve more than the input could hold.
    package mutating func count(minItemSize: Int, _ field: String) throws(WireError) -> Int {
        let n = Int(try u16(field + " count"))
        guard n * minItemSize <= remaining else { throw .truncated(field: field) }
        return n
    }

    /// Everything left, up to `limit` bytes.
    package mutating func rest(limit: Int, _ field: String) throws(WireError) -> [UInt8] {
        guard remaining <= limit else { throw .tooLarge(field: field, length: remaining, limit: limit) }
        return Array(try take(remaining, field))
    }

    /// Encodings are exact: leftover bytes are an error.
    package func finish() throws(WireError) {
        guard remaining == 0 else { throw .trailingBytes(count: remaining) }
    }
}
