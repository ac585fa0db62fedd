import Glibc
import RelayWire

/// The forwarding path without copies it can avoid: a `send` is validated in place (offsets into
/// the received message, no decoded copy of the sealed bytes) and its `receive` is written into
/// one exactly sized array. The checks are those of `RelayFrame.decode` (tests compare the two).
///
///   send body:    recipient 32 | class u8 | frame id 16 | ttl u32 | ck len u8 | ck | sealed (rest)
///   receive body: sender 32    | class u8 | frame id 16 | held ms u64          | sealed (rest)
struct SendView {
    /// The message itself (held, not copied): the keys are cut from it only when asked for, so a
    /// live forward that finds its route allocates none.
    let message: [UInt8]
    let deliveryClass: DeliveryClass
    let ttlSeconds: UInt32
    let collapseKey: Range<Int>
    let sealed: Range<Int>

    static let typeCode: UInt8 = 0x10
    /// recipient 32 + class 1 + frame id 16 + ttl 4 + collapse key length 1.
    static let fixedBody = 54
    /// Where the recipient key and the frame id lie in the message.
    static let recipientRange = RelayFrame.headerSize..<(RelayFrame.headerSize + 32)
    static let frameIDRange = (RelayFrame.headerSize + 33)..<(RelayFrame.headerSize + 49)

    var recipient: Bytes32 { Bytes32(unchecked: Array(message[Self.recipientRange])) }
    var frameID: Bytes16 { Bytes16(unchecked: Array(message[Self.frameIDRange])) }

    /// Whether the recipient is `key`, compared in the message (nothing cut from it).
    func names(_ key: Bytes32) -> Bool {
        message.withUnsafeBytes { m in
            key.bytes.withUnsafeBytes { k in memcmp(m.baseAddress! + Self.recipientRange.lowerBound, k.baseAddress!, 32) == 0 }
        }
    }

    /// Validates a whole message whose first byte is the `send` type.
    static func parse(_ m: [UInt8]) throws(WireError) -> SendView {
        let h = RelayFrame.headerSize
        guard m.count >= h else { throw .truncated(field: "frame length") }
        let length = Int(m[2]) << 24 | Int(m[3]) << 16 | Int(m[4]) << 8 | Int(m[5])
        guard length <= Limits.maxFrameBody else {
            throw .tooLarge(field: "frame body", length: length, limit: Limits.maxFrameBody)
        }
        if m.count - h < length { throw .truncated(field: "frame body") }
        if m.count - h > length { throw .trailingBytes(count: m.count - h - length) }
        guard length >= fixedBody else { throw .truncated(field: "send") }
        let cls = m[h + 32]
        guard let deliveryClass = DeliveryClass(rawValue: cls) else { throw .badClass(cls) }
        let ttl = UInt32(m[h + 49]) << 24 | UInt32(m[h + 50]) << 16 | UInt32(m[h + 51]) << 8 | UInt32(m[h + 52])
        let ckLength = Int(m[h + 53])
        guard ckLength <= Limits.maxCollapseKey else {
            throw .tooLarge(field: "collapse key", length: ckLength, limit: Limits.maxCollapseKey)
        }
        let ckStart = h + fixedBody
        guard m.count >= ckStart + ckLength else { throw .truncated(field: "collapse key") }
        if deliveryClass == .live && ckLength > 0 { throw .collapseKeyOnLive }
        let sealedStart = ckStart + ckLength
        guard m.count - sealedStart <= Limits.maxSealed else {
            throw .tooLarge(field: "sealed", length: m.count - sealedStart, limit: Limits.maxSealed)
        }
        return SendView(message: m, deliveryClass: deliveryClass, ttlSeconds: ttl,
                        collapseKey: ckStart..<sealedStart, sealed: sealedStart..<m.count)
    }
}

enum ForwardCodec {
    /// receive header: sender 32 + class 1 + frame id 16 + held 8.
    static let receiveFixedBody = 57
    /// A `receive` frame's bytes before its sealed bytes.
    static let receiveHeaderSize = RelayFrame.headerSize + receiveFixedBody

    /// A `receive` frame carrying `sealed`, written once into an exactly sized array.
    static func receive(sender: Bytes32, deliveryClass: DeliveryClass, frameID: Bytes16, heldMs: UInt64,
                        sealed: ArraySlice<UInt8>) -> [UInt8] {
        var out = receiveHeader(sender: sender, deliveryClass: deliveryClass, frameID: frameID, heldMs: heldMs,
                                sealedCount: sealed.count, reserve: sealed.count)
        out.append(contentsOf: sealed)
        return out
    }

    /// A `receive` frame's bytes before its sealed bytes (the live path sends the sealed bytes
    /// after it as a slice of the `send` they came in, never copied into a new frame).
    static func receiveHeader(sender: Bytes32, deliveryClass: DeliveryClass, frameID: Bytes16, heldMs: UInt64,
                              sealedCount: Int, reserve: Int = 0) -> [UInt8] {
        let body = receiveFixedBody + sealedCount
        var out: [UInt8] = []
        out.reserveCapacity(RelayFrame.headerSize + receiveFixedBody + reserve)
        out.append(0x11)
        out.append(0)
        for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: body >> shift)) }
        out.append(contentsOf: sender.bytes)
        out.append(deliveryClass.rawValue)
        out.append(contentsOf: frameID.bytes)
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: heldMs >> UInt64(shift))) }
        return out
    }

    /// `receiveHeader`'s bytes written into `out` (exactly `headerSize + receiveFixedBody`
    /// bytes), the frame id copied from the `send` it answers: nothing allocated per forward.
    static func writeReceiveHeader(into out: UnsafeMutableRawBufferPointer, sender: Bytes32, deliveryClass: DeliveryClass,
                                   send v: SendView, heldMs: UInt64) {
        let body = receiveFixedBody + v.sealed.count
        out[0] = 0x11
        out[1] = 0
        for i in 0..<4 { out[2 + i] = UInt8(truncatingIfNeeded: body >> (24 - 8 * i)) }
        var at = RelayFrame.headerSize
        sender.bytes.withUnsafeBytes { k in out.baseAddress!.advanced(by: at).copyMemory(from: k.baseAddress!, byteCount: 32) }
        at += 32
        out[at] = deliveryClass.rawValue
        at += 1
        v.message.withUnsafeBytes { m in
            out.baseAddress!.advanced(by: at).copyMemory(from: m.baseAddress! + SendView.frameIDRange.lowerBound, byteCount: 16)
        }
        at += 16
        for i in 0..<8 { out[at + i] = UInt8(truncatingIfNeeded: heldMs >> UInt64(56 - 8 * i)) }
    }

    /// A relay-to-device control frame. Our own frames always fit their limits (texts are ours
    /// and short), so encoding cannot fail; a failure would be a bug caught by tests.
    static func control(_ f: RelayFrame) -> [UInt8] {
        do { return try f.encode() } catch { preconditionFailure("relay control frame does not encode: \(error)") }
    }
}
