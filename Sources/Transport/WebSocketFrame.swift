/// RFC 6455 section 5.2 frame header:
///
///     byte 0: FIN(1) RSV1(1) RSV2(1) RSV3(1) opcode(4)
///     byte 1: MASK(1) payload-len(7)      126 -> 16-bit length follows, 127 -> 64-bit length follows
///     [2 or 8 bytes: extended length, big-endian, minimal encoding, top bit of 64-bit clear]
///     [4 bytes: masking key, present iff MASK; client-to-server frames MUST be masked]
///     payload
public enum WebSocketOpcode: UInt8, Sendable {
    case continuation = 0x0, text = 0x1, binary = 0x2
    case close = 0x8, ping = 0x9, pong = 0xA

    var isControl: Bool { rawValue & 0x8 != 0 }
}

/// Which end of the connection a codec speaks for: servers receive masked frames, clients send them.
public enum WebSocketRole: Sendable { case server, client }

/// A frame header, encoded before a payload that is written as its own iovec (no copy).
struct WebSocketFrameHeader: Equatable {
    var fin: Bool
    var opcode: WebSocketOpcode
    var mask: (UInt8, UInt8, UInt8, UInt8)?
    var length: Int

    /// Largest header: 2 + 8 (64-bit length) + 4 (mask).
    static let maxSize = 14
    /// Control frame payloads are at most 125 bytes (section 5.5).
    static let maxControlPayload = 125

    func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(Self.maxSize)
        encode(into: &out)
        return out
    }

    /// Appends the header to `out` (a caller that reserved room for what follows: one allocation).
    func encode(into out: inout [UInt8]) {
        out.append((fin ? 0x80 : 0) | opcode.rawValue)
        let maskBit: UInt8 = mask == nil ? 0 : 0x80
        if length < 126 {
            out.append(maskBit | UInt8(length))
        } else if length <= 0xFFFF {
            out.append(maskBit | 126)
            out.append(UInt8(length >> 8)); out.append(UInt8(length & 0xFF))
        } else {
            out.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8((length >> shift) & 0xFF)) }
        }
        if let m = mask { out.append(m.0); out.append(m.1); out.append(m.2); out.append(m.3) }
    }

    /// Writes the header at the start of `out` (at least `maxSize` bytes) and returns its size:
    /// the same bytes as `encode(into:)`, for a header built on the stack.
    func encode(to out: UnsafeMutableRawBufferPointer) -> Int {
        out[0] = (fin ? 0x80 : 0) | opcode.rawValue
        let maskBit: UInt8 = mask == nil ? 0 : 0x80
        var at: Int
        if length < 126 {
            out[1] = maskBit | UInt8(length); at = 2
        } else if length <= 0xFFFF {
            out[1] = maskBit | 126; out[2] = UInt8(length >> 8); out[3] = UInt8(length & 0xFF); at = 4
        } else {
            out[1] = maskBit | 127
            for i in 0..<8 { out[2 + i] = UInt8((length >> (56 - 8 * i)) & 0xFF) }
            at = 10
        }
        if let m = mask { out[at] = m.0; out[at + 1] = m.1; out[at + 2] = m.2; out[at + 3] = m.3; at += 4 }
        return at
    }

    static func == (a: Self, b: Self) -> Bool {
        a.fin == b.fin && a.opcode == b.opcode && a.length == b.length
            && a.mask.map { [$0.0, $0.1, $0.2, $0.3] } == b.mask.map { [$0.0, $0.1, $0.2, $0.3] }
    }
}

/// Applies (or removes: XOR is its own inverse) a masking key, `offset` bytes into the payload.
/// The payload as a new array, unmasked while it is copied (one pass over the bytes, not two).
func unmaskedCopy(_ src: UnsafeBufferPointer<UInt8>, _ key: (UInt8, UInt8, UInt8, UInt8)?) -> [UInt8] {
    guard let key else { return Array(src) }
    let k = [key.0, key.1, key.2, key.3]
    var pattern: UInt64 = 0
    withUnsafeMutableBytes(of: &pattern) { w in for j in 0..<8 { w[j] = k[j & 3] } }
    let n = src.count
    return [UInt8](unsafeUninitializedCapacity: n) { out, count in
        guard n > 0, let s = src.baseAddress, let d = out.baseAddress else { count = 0; return }
        let from = UnsafeRawPointer(s), to = UnsafeMutableRawPointer(d)
        var i = 0
        while i + 8 <= n {
            to.storeBytes(of: from.loadUnaligned(fromByteOffset: i, as: UInt64.self) ^ pattern, toByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < n { d[i] = s[i] ^ k[i & 3]; i += 1 }
        count = n
    }
}

func applyMask(_ bytes: inout [UInt8], _ key: (UInt8, UInt8, UInt8, UInt8), offset: Int = 0) {
    let k = [key.0, key.1, key.2, key.3]
    // Eight bytes per step: every client frame the relay reads is unmasked here, and byte at a
    // time this loop was a tenth of the relay's CPU at 16 KiB frames. The key repeats every 4
    // bytes, so one 8-byte pattern (in memory order: no endianness question) fits every step.
    var pattern: UInt64 = 0
    withUnsafeMutableBytes(of: &pattern) { w in for j in 0..<8 { w[j] = k[(j + offset) & 3] } }
    bytes.withUnsafeMutableBytes { p in
        let n = p.count
        var i = 0
        while i + 8 <= n {
            p.storeBytes(of: p.loadUnaligned(fromByteOffset: i, as: UInt64.self) ^ pattern, toByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < n { p[i] ^= k[(i + offset) & 3]; i += 1 }
    }
}

/// Close status codes (RFC 6455 section 7.4).
public struct WebSocketCloseCode: RawRepresentable, Equatable, Hashable, Sendable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ v: UInt16) { rawValue = v }

    public static let normal = Self(1000)
    public static let goingAway = Self(1001)
    public static let protocolError = Self(1002)
    public static let unsupportedData = Self(1003)
    /// Never sent: reported locally when a close frame carried no code.
    public static let noStatus = Self(1005)
    /// Never sent: reported locally when the connection ended without a close frame.
    public static let abnormal = Self(1006)
    public static let invalidPayload = Self(1007)
    public static let policyViolation = Self(1008)
    public static let messageTooBig = Self(1009)
    public static let internalError = Self(1011)
    public static let tryAgainLater = Self(1013)

    /// Whether a peer may send this code in a close frame: 1000-1003, 1007-1014 and 3000-4999.
    /// 1004-1006 and 1015 are reserved, the rest of 1000-2999 unassigned, 0-999 and 5000+ unused.
    public var isValidOnWire: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }
}
