/// Strict UTF-8 check (RFC 3629): no overlongs, no surrogates, nothing above U+10FFFF.
/// Text messages and close reasons that fail it close the connection with 1007.
func isValidUTF8<C: Collection<UInt8>>(_ bytes: C) -> Bool {
    var i = bytes.startIndex
    while i != bytes.endIndex {
        let b0 = bytes[i]
        if b0 < 0x80 { i = bytes.index(after: i); continue }
        let need: Int
        var lo: UInt8 = 0x80, hi: UInt8 = 0xBF // allowed range of the second byte
        switch b0 {
        case 0xC2...0xDF: need = 1
        case 0xE0: need = 2; lo = 0xA0
        case 0xE1...0xEC, 0xEE, 0xEF: need = 2
        case 0xED: need = 2; hi = 0x9F
        case 0xF0: need = 3; lo = 0x90
        case 0xF1...0xF3: need = 3
        case 0xF4: need = 3; hi = 0x8F
        default: return false
        }
        i = bytes.index(after: i)
        for k in 0..<need {
            guard i != bytes.endIndex else { return false }
            let b = bytes[i]
            if k == 0 { guard b >= lo && b <= hi else { return false } } else { guard b & 0xC0 == 0x80 else { return false } }
            i = bytes.index(after: i)
        }
    }
    return true
}
