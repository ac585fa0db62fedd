// Relay-frame codec cases: a `send` frame encoded and decoded, and the incremental parser.
import Wire

enum WireCases {
    static func sendFrame(sealed: Int) -> RelayFrame {
        .send(.init(recipient: .repeating(1), deliveryClass: .live, frameID: .repeating(2), ttlSeconds: 60,
                    sealed: [UInt8](repeating: 3, count: sealed)))
    }

    static func encode(sealed size: Int, _ s: Settings) throws -> Result? {
        let frame = sendFrame(sealed: size)
        return try measure("send frame encode", bytes: size, settings: s) { try frame.encode().count }
    }

    static func decode(sealed size: Int, _ s: Settings) throws -> Result? {
        let bytes = try sendFrame(sealed: size).encode()
        return try measure("send frame decode", bytes: size, settings: s) {
            guard case .send(let send) = try RelayFrame.decode(bytes) else { fatalError("decoded another frame type") }
            return send.sealed.count
        }
    }

    /// 1,024 back-to-back 256-byte `send` frames (196 sealed bytes each), fed in 4 KiB reads.
    static func parser(_ s: Settings) throws -> Result? {
        let frame = try sendFrame(sealed: 196).encode()
        precondition(frame.count == 256, "the frame should be 256 bytes")
        let count = 1024
        let stream = Array([[UInt8]](repeating: frame, count: count).joined())
        return try measure("FrameParser, 256-byte frames", bytes: 256, itemsPerCall: count, settings: s) {
            var parser = FrameParser()
            var frames = 0
            var offset = 0
            while offset < stream.count {
                var action = parser.parse(stream[offset..<min(stream.count, offset + 4096)])
                while case .frame = action { frames += 1; action = parser.next() }
                offset += 4096
            }
            precondition(frames == count, "the parser lost frames")
            return frames
        }
    }
}
