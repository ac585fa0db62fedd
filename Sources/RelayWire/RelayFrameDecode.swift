// Decoding relay frames (layouts in RelayFrame.swift). Total: any bytes give a frame or a WireError.

extension RelayFrame {
    /// Decodes one whole frame (one WebSocket binary message): header and exactly `length` body bytes.
    public static func decode(_ message: [UInt8]) throws(WireError) -> RelayFrame {
        try decode(message[...])
    }

    /// Decodes one whole frame from a slice.
    public static func decode(_ message: ArraySlice<UInt8>) throws(WireError) -> RelayFrame {
        var r = ByteReader(message)
        let (type, length) = try readHeader(&r)
        if r.remaining < length { throw .truncated(field: "frame body") }
        if r.remaining > length { throw .trailingBytes(count: r.remaining - length) }
        return try decodeBody(type: type, try r.take(length, "frame body"))
    }

    /// Reads type and length, ignoring flags; an oversize length fails here, before any body.
    static func readHeader(_ r: inout ByteReader) throws(WireError) -> (UInt8, Int) {
        let type = try r.u8("frame type")
        _ = try r.u8("frame flags")  // reserved: ignored on receipt
        let length = Int(try r.u32("frame length"))
        guard length <= Limits.maxFrameBody else {
            throw .tooLarge(field: "frame body", length: length, limit: Limits.maxFrameBody)
        }
        return (type, length)
    }

    static func decodeBody(type: UInt8, _ body: ArraySlice<UInt8>) throws(WireError) -> RelayFrame {
        var r = ByteReader(body)
        let frame: RelayFrame
        switch type {
        case TypeCode.challenge:
            frame = .challenge(Challenge(version: try r.u8("version"), nonce: try r.fixed("nonce"),
                                         origin: try r.string(2, limit: Limits.maxOrigin, "origin")))
        case TypeCode.auth: frame = .auth(try decodeAuth(&r))
        case TypeCode.authOK:
            frame = .authOK(AuthOK(serverTimeMs: try r.u64("server time"), mailboxCapacity: try r.u32("mailbox capacity"),
                                   maxTTLSeconds: try r.u32("max ttl")))
        case TypeCode.authRefused:
            frame = .authRefused(AuthRefused(reason: AuthRefusalReason(rawValue: try r.u8("reason")),
                                             text: try r.string(2, limit: Limits.maxReasonText, "reason text")))
        case TypeCode.deviceProof: frame = .deviceProof(try decodeDeviceProof(&r))
        case TypeCode.accountOrder: frame = .accountOrder(try decodeAccountOrder(&r))
        case TypeCode.send: frame = .send(try decodeSend(&r))
        case TypeCode.receive:
            frame = .receive(Receive(sender: try r.fixed("sender"), deliveryClass: try deliveryClass(&r),
                                     frameID: try r.fixed("frame id"), heldMs: try r.u64("held ms"),
                                     sealed: try r.rest(limit: Limits.maxSealed, "sealed")))
        case TypeCode.ack: frame = .ack(frameID: try r.fixed("frame id"))
        case TypeCode.notHere: frame = .notHere(frameID: try r.fixed("frame id"))
        case TypeCode.stored: frame = .stored(frameID: try r.fixed("frame id"))
        case TypeCode.mailboxFull: frame = .mailboxFull(frameID: try r.fixed("frame id"))
        case TypeCode.dropped: frame = .dropped(frameID: try r.fixed("frame id"))
        case TypeCode.queueEmpty: frame = .queueEmpty
        case TypeCode.peerGone:
            frame = .peerGone(PeerGone(peer: try r.fixed("peer key"), reason: PeerGoneReason(rawValue: try r.u8("peer-gone reason"))))
        case TypeCode.ping: frame = .ping(try r.u64("ping"))
        case TypeCode.pong: frame = .pong(try r.u64("pong"))
        case TypeCode.error:
            frame = .error(ErrorFrame(code: RelayErrorCode(rawValue: try r.u16("error code")),
                                      text: try r.string(2, limit: Limits.maxReasonText, "error text")))
        case TypeCode.restarting: frame = .restarting(reconnectAfterMs: try r.u32("reconnect after"))
        default: return .unknown(type: type)  // forward compatibility: skip, never fail
        }
        try r.finish()
        return frame
    }

    private static func decodeAuth(_ r: inout ByteReader) throws(WireError) -> Auth {
        let key: Bytes32 = try r.fixed("device key")
        let signature: Bytes64 = try r.fixed("signature")
        let options = try r.u8("auth options")  // bits other than 0 and 1 are reserved: ignored
        var auth = Auth(deviceKey: key, signature: signature)
        if options & Auth.hasAccount != 0 {
            auth.account = AccountProof(accountKey: try r.fixed("account key"), signature: try r.fixed("account signature"))
        }
        if options & Auth.hasToken != 0 {
            auth.admissionToken = try r.prefixed(2, limit: Limits.maxAdmissionToken, "admission token")
        }
        return auth
    }

    private static func decodeSend(_ r: inout ByteReader) throws(WireError) -> Send {
        let recipient: Bytes32 = try r.fixed("recipient")
        let cls = try deliveryClass(&r)
        let id: Bytes16 = try r.fixed("frame id")
        let ttl = try r.u32("ttl")
        let collapse = try r.prefixed(1, limit: Limits.maxCollapseKey, "collapse key")
        if cls == .live && !collapse.isEmpty { throw .collapseKeyOnLive }
        return Send(recipient: recipient, deliveryClass: cls, frameID: id, ttlSeconds: ttl,
                    collapseKey: collapse, sealed: try r.rest(limit: Limits.maxSealed, "sealed"))
    }

    private static func deliveryClass(_ r: inout ByteReader) throws(WireError) -> DeliveryClass {
        let b = try r.u8("class")
        guard let c = DeliveryClass(rawValue: b) else { throw .badClass(b) }
        return c
    }
}
