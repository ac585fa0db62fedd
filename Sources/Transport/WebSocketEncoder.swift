extension WebSocketCodec {
    /// The chunks to write for one frame: the header, then the payload. Servers send the
    /// caller's payload array itself (no copy); clients send a masked copy under a fresh key.
    public static func encode(_ opcode: WebSocketOpcode, _ payload: [UInt8], role: WebSocketRole,
                              fin: Bool = true) -> [[UInt8]] {
        var header = WebSocketFrameHeader(fin: fin, opcode: opcode, mask: nil, length: payload.count)
        guard role == .client else {
            return payload.isEmpty ? [header.encoded()] : [header.encoded(), payload]
        }
        var rng = SystemRandomNumberGenerator()
        let k = rng.next() as UInt32
        let key = (UInt8(k >> 24), UInt8((k >> 16) & 0xFF), UInt8((k >> 8) & 0xFF), UInt8(k & 0xFF))
        header.mask = key
        var masked = payload
        applyMask(&masked, key)
        return masked.isEmpty ? [header.encoded()] : [header.encoded(), masked]
    }

    /// A close frame's payload: the code big-endian, then a UTF-8 reason cut to fit 125 bytes.
    public static func closePayload(_ code: WebSocketCloseCode, reason: String) -> [UInt8] {
        var r = Array(reason.utf8.prefix(WebSocketFrameHeader.maxControlPayload - 2))
        // Cut at a character boundary so the reason stays valid UTF-8.
        while !r.isEmpty, !isValidUTF8(r) { r.removeLast() }
        return [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)] + r
    }
}
