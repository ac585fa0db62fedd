// Decoding and encoding application messages (type table in AppMessage.swift).
import RelayWire

extension AppMessage {
    /// Decodes one whole message (the plaintext of one sealed envelope, or reassembled parts).
    public static func decode(_ bytes: [UInt8]) throws(WireError) -> AppMessage {
        try decode(bytes[...])
    }

    /// Decodes one whole message from a slice.
    public static func decode(_ bytes: ArraySlice<UInt8>) throws(WireError) -> AppMessage {
        var r = ByteReader(bytes)
        let type = try r.u8("message type")
        let message: AppMessage
        switch type {
        case TypeCode.advert: message = .advert(try .read(&r))
        case TypeCode.away: message = .away(try .read(&r))
        case TypeCode.request: message = .request(try .read(&r))
        case TypeCode.requestV2: message = .request(try .readV2(&r))
        case TypeCode.accept: message = .accept(requestID: try r.fixed("request id"))
        case TypeCode.chunk: message = .chunk(requestID: try r.fixed("request id"), text: try r.string(4, "text"))
        case TypeCode.done: message = .done(try .read(&r))
        case TypeCode.error: message = .error(try .read(&r))
        case TypeCode.cancel: message = .cancel(requestID: try r.fixed("request id"))
        case TypeCode.syncDelta: message = .syncDelta(try .read(&r, version: 1))
        case TypeCode.syncDeltaV2: message = .syncDelta(try .read(&r, version: 2))
        case TypeCode.invite: message = .invite(try .read(&r))
        case TypeCode.join: message = .join(try .read(&r))
        case TypeCode.grant: message = .grant(try .read(&r))
        case TypeCode.revoke: message = .revoke(try .read(&r))
        case TypeCode.modelChoice: message = .modelChoice(try .read(&r))
        case TypeCode.roster: message = .roster(try .read(&r))
        case TypeCode.pairRequest: message = .pairRequest(try .read(&r))
        case TypeCode.pairWelcome: message = .pairWelcome(try .read(&r))
        case TypeCode.pairRefused: message = .pairRefused(try .read(&r))
        case TypeCode.pairCodeRequest: message = .pairCodeRequest(try .read(&r))
        case TypeCode.pairCode: message = .pairCode(try .read(&r))
        case TypeCode.pairCodeOutcome: message = .pairCodeOutcome(try .read(&r))
        case TypeCode.rosterAsk: message = .rosterAsk(version: try r.u64("version"))
        case TypeCode.grantTerms: message = .grantTerms(try .read(&r))
        case TypeCode.part: message = .part(try .read(&r))
        case TypeCode.embedRequest: message = .embedRequest(try .read(&r))
        case TypeCode.embedResult: message = .embedResult(try .read(&r))
        case TypeCode.manageRequest: message = .manageRequest(try .read(&r))
        case TypeCode.manageProgress: message = .manageProgress(try .read(&r))
        case TypeCode.manageResult: message = .manageResult(try .read(&r))
        default: return .unknown(type: type)  // forward compatibility: skip, never fail
        }
        try r.finish()
        return message
    }

    /// The message's bytes. `.unknown` encodes as its type byte alone.
    public func encode() throws(WireError) -> [UInt8] {
        var w = ByteWriter()
        w.u8(typeCode)
        switch self {
        case .advert(let m): try m.write(to: &w)
        case .away(let m): try m.write(to: &w)
        case .request(let m): try m.write(to: &w)
        case .accept(let id), .cancel(let id): w.fixed(id)
        case .chunk(let id, let text): w.fixed(id); try w.string(4, text, "text")
        case .done(let m): try m.write(to: &w)
        case .error(let m): try m.write(to: &w)
        case .syncDelta(let m): try m.write(to: &w)
        case .invite(let m): try m.write(to: &w)
        case .join(let m): try m.write(to: &w)
        case .grant(let m): try m.write(to: &w)
        case .revoke(let m): try m.write(to: &w)
        case .modelChoice(let m): try m.write(to: &w)
        case .roster(let m): try m.write(to: &w)
        case .pairRequest(let m): try m.write(to: &w)
        case .pairWelcome(let m): try m.write(to: &w)
        case .pairRefused(let m): try m.write(to: &w)
        case .pairCodeRequest(let m): try m.write(to: &w)
        case .pairCode(let m): try m.write(to: &w)
        case .pairCodeOutcome(let m): try m.write(to: &w)
        case .rosterAsk(let v): w.u64(v)
        case .grantTerms(let m): try m.write(to: &w)
        case .part(let m): try m.write(to: &w)
        case .embedRequest(let m): try m.write(to: &w)
        case .embedResult(let m): try m.write(to: &w)
        case .manageRequest(let m): try m.write(to: &w)
        case .manageProgress(let m): try m.write(to: &w)
        case .manageResult(let m): try m.write(to: &w)
        case .unknown: break
        }
        return w.bytes
    }
}

extension ByteReader {
    /// A u16-counted list of str16 strings (model tags).
    mutating func stringList(_ field: String) throws(WireError) -> [String] {
        let n = try count(minItemSize: 2, field)
        var out: [String] = []
        out.reserveCapacity(n)
        for _ in 0..<n { out.append(try string(2, field)) }
        return out
    }
}

extension ByteWriter {
    mutating func stringList(_ list: [String], _ field: String) throws(WireError) {
        try count(list.count, field)
        for s in list { try string(2, s, field) }
    }
}
