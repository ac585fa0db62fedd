// Encoding relay frames (layouts in RelayFrame.swift). Encoding checks the limits the decoder
// enforces, so every frame that encodes also decodes to an equal frame.

extension RelayFrame {
    /// The frame's bytes: header (flags 0) and body. `.unknown` encodes with an empty body.
    public func encode() throws(WireError) -> [UInt8] {
        var body = ByteWriter()
        try encodeBody(into: &body)
        guard body.bytes.count <= Limits.maxFrameBody else {
            throw .tooLarge(field: "frame body", length: body.bytes.count, limit: Limits.maxFrameBody)
        }
        var w = ByteWriter()
        w.u8(typeCode)
        w.u8(0)
        w.u32(UInt32(body.bytes.count))
        w.raw(body.bytes)
        return w.bytes
    }

    private func encodeBody(into w: inout ByteWriter) throws(WireError) {
        switch self {
        case .challenge(let c):
            w.u8(c.version); w.fixed(c.nonce)
            try w.string(2, c.origin, limit: Limits.maxOrigin, "origin")
        case .auth(let a):
            w.fixed(a.deviceKey); w.fixed(a.signature)
            w.u8((a.account == nil ? 0 : Auth.hasAccount) | (a.admissionToken == nil ? 0 : Auth.hasToken))
            if let p = a.account { w.fixed(p.accountKey); w.fixed(p.signature) }
            if let t = a.admissionToken { try w.prefixed(2, t, limit: Limits.maxAdmissionToken, "admission token") }
        case .authOK(let o):
            w.u64(o.serverTimeMs); w.u32(o.mailboxCapacity); w.u32(o.maxTTLSeconds)
        case .authRefused(let r):
            w.u8(r.reason.rawValue)
            try w.string(2, r.text, limit: Limits.maxReasonText, "reason text")
        case .send(let s):
            if s.deliveryClass == .live && !s.collapseKey.isEmpty { throw .collapseKeyOnLive }
            w.fixed(s.recipient); w.u8(s.deliveryClass.rawValue); w.fixed(s.frameID); w.u32(s.ttlSeconds)
            try w.prefixed(1, s.collapseKey, limit: Limits.maxCollapseKey, "collapse key")
            try w.rest(s.sealed, limit: Limits.maxSealed, "sealed")
        case .receive(let r):
            w.fixed(r.sender); w.u8(r.deliveryClass.rawValue); w.fixed(r.frameID); w.u64(r.heldMs)
            try w.rest(r.sealed, limit: Limits.maxSealed, "sealed")
        case .ack(let id), .notHere(let id), .stored(let id), .mailboxFull(let id), .dropped(let id):
            w.fixed(id)
        case .queueEmpty, .unknown:
            break
        case .deviceProof(let p): Self.encode(p, into: &w)
        case .accountOrder(let o): Self.encode(o, into: &w)
        case .ping(let v), .pong(let v):
            w.u64(v)
        case .error(let e):
            w.u16(e.code.rawValue)
            try w.string(2, e.text, limit: Limits.maxReasonText, "error text")
        case .restarting(let ms):
            w.u32(ms)
        case .peerGone(let g):
            w.fixed(g.peer); w.u8(g.reason.rawValue)
        }
    }
}
