/// Decodes one frame header from the front of a byte buffer, enforcing every header rule that
/// does not depend on message state (section 5.2): reserved bits, opcodes, minimal lengths,
/// control frame limits, and the masking direction.
enum WebSocketHeaderDecoder {
    enum Result: Equatable {
        case needMore
        case header(WebSocketFrameHeader, size: Int)
        case invalid(String)
    }

    static func decode(_ b: UnsafeBufferPointer<UInt8>, role: WebSocketRole) -> Result {
        guard b.count >= 2 else { return .needMore }
        let b0 = b[0], b1 = b[1]
        // No extension is ever negotiated, so RSV1-3 must be zero.
        if b0 & 0x70 != 0 { return .invalid("reserved bits set") }
        guard let opcode = WebSocketOpcode(rawValue: b0 & 0x0F) else { return .invalid("unknown opcode") }
        let fin = b0 & 0x80 != 0
        let masked = b1 & 0x80 != 0
        switch role {
        case .server where !masked: return .invalid("client frame not masked")
        case .client where masked: return .invalid("server frame masked")
        default: break
        }
        var size = 2
        var length = Int(b1 & 0x7F)
        if length == 126 {
            guard b.count >= 4 else { return .needMore }
            length = Int(b[2]) << 8 | Int(b[3])
            if length < 126 { return .invalid("non-minimal length") }
            size = 4
        } else if length == 127 {
            guard b.count >= 10 else { return .needMore }
            if b[2] & 0x80 != 0 { return .invalid("64-bit length with top bit set") }
            var l: UInt64 = 0
            for i in 2..<10 { l = l << 8 | UInt64(b[i]) }
            if l <= 0xFFFF { return .invalid("non-minimal length") }
            // Anything over Int.max is refused later as too big; clamp to keep arithmetic safe.
            length = l > UInt64(Int.max / 2) ? Int.max / 2 : Int(l)
            size = 10
        }
        if opcode.isControl {
            if !fin { return .invalid("fragmented control frame") }
            if length > WebSocketFrameHeader.maxControlPayload { return .invalid("control frame over 125 bytes") }
        }
        var mask: (UInt8, UInt8, UInt8, UInt8)?
        if masked {
            guard b.count >= size + 4 else { return .needMore }
            mask = (b[size], b[size + 1], b[size + 2], b[size + 3])
            size += 4
        }
        return .header(WebSocketFrameHeader(fin: fin, opcode: opcode, mask: mask, length: length), size: size)
    }
}
