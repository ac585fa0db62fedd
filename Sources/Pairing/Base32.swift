/// Crockford's base32 (digits and 22 letters, no I, L, O, U), lowercase, no padding: a code
/// survives being read aloud or retyped, and case does not matter. Decoding also takes
/// `i`/`l` as 1 and `o` as 0, and ignores `-` and whitespace.
enum Base32 {
    static let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 8 + 4) / 5)
        var buffer: UInt32 = 0, bits = 0
        for b in bytes {
            buffer = (buffer << 8) | UInt32(b)
            bits += 8
            while bits >= 5 {
                bits -= 5
                out.append(alphabet[Int((buffer >> UInt32(bits)) & 31)])
            }
        }
        if bits > 0 { out.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Nil when a character is outside the alphabet or the padding bits are not zero.
    static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        var buffer: UInt32 = 0, bits = 0
        for c in text.lowercased().utf8 {
            if c == UInt8(ascii: "-") || c == 0x20 || c == 0x0a || c == 0x0d || c == 0x09 { continue }
            guard let v = value(c) else { return nil }
            buffer = (buffer << 5) | UInt32(v)
            bits += 5
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((buffer >> UInt32(bits)) & 0xff))
            }
        }
        guard buffer & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return out
    }

    private static func value(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "i"), UInt8(ascii: "l"): return 1
        case UInt8(ascii: "o"): return 0
        default: return alphabet.firstIndex(of: c).map { UInt8($0) }
        }
    }
}
