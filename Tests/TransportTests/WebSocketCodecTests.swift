import Testing
@testable import Transport

/// Frame bytes, built by hand so tests can break any rule.
func rawFrame(_ op: UInt8, _ payload: [UInt8], fin: Bool = true, masked: Bool = true,
              rsv: UInt8 = 0, lengthBytes: [UInt8]? = nil) -> [UInt8] {
    var out: [UInt8] = [(fin ? 0x80 : 0) | rsv | op]
    let m: UInt8 = masked ? 0x80 : 0
    if let l = lengthBytes {
        out.append(m | (l.count == 2 ? 126 : 127)); out += l
    } else if payload.count < 126 { out.append(m | UInt8(payload.count)) }
    else if payload.count <= 0xFFFF { out += [m | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] }
    else { out.append(m | 127); for s in stride(from: 56, through: 0, by: -8) { out.append(UInt8((payload.count >> s) & 0xFF)) } }
    var p = payload
    if masked {
        let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        out += key
        applyMask(&p, (key[0], key[1], key[2], key[3]))
    }
    return out + p
}

/// Feeds `bytes` in pieces of the given sizes (cycled) and collects events.
func events(_ codec: inout WebSocketCodec, _ bytes: [UInt8], splits: [Int] = [Int.max]) -> [WebSocketCodec.Event] {
    var out: [WebSocketCodec.Event] = []
    var i = 0, k = 0
    while i < bytes.count {
        let n = min(splits[k % splits.count], bytes.count - i)
        codec.feed(Array(bytes[i..<(i + n)]))
        i += n; k += 1
        while true { let e = codec.next(); if e == .needMore { break }; out.append(e) }
    }
    return out
}

private func server(max: Int = 1 << 20) -> WebSocketCodec { WebSocketCodec(role: .server, maxMessageSize: max) }

@Test(arguments: [0, 1, 125, 126, 65535, 65536, 1 << 20])
func roundTripsEverySizeInBothDirections(size: Int) {
    let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    for role in [WebSocketRole.client, .server] {
        let wire = WebSocketCodec.encode(.binary, payload, role: role).flatMap { $0 }
        var peer = WebSocketCodec(role: role == .client ? .server : .client, maxMessageSize: 1 << 20)
        #expect(events(&peer, wire, splits: [1, 3, 1000, 7]) == [.binary(payload)])
        #expect(peer.bufferedBytes == 0)
    }
}

@Test func serverSendsPayloadWithoutCopy() {
    let chunks = WebSocketCodec.encode(.binary, [1, 2, 3], role: .server)
    #expect(chunks == [[0x82, 3], [1, 2, 3]])
    let long = WebSocketCodec.encode(.binary, [UInt8](repeating: 0, count: 70000), role: .server)
    #expect(long[0] == [0x82, 127, 0, 0, 0, 0, 0, 1, 0x11, 0x70])
}

@Test func maskingDirectionIsEnforced() {
    var s = server()
    #expect(events(&s, rawFrame(2, [1], masked: false)) == [.fail(.protocolError, "client frame not masked")])
    var c = WebSocketCodec(role: .client, maxMessageSize: 100)
    #expect(events(&c, rawFrame(2, [1], masked: true)) == [.fail(.protocolError, "server frame masked")])
}

@Test func headerRulesAreEnforced() {
    let bad: [([UInt8], String)] = [
        (rawFrame(2, [1], rsv: 0x40), "reserved bits set"),
        (rawFrame(3, [1]), "unknown opcode"),
        (rawFrame(2, [1, 2], lengthBytes: [0, 2]), "non-minimal length"),
        (rawFrame(2, [1, 2], lengthBytes: [0, 0, 0, 0, 0, 0, 0xFF, 0xFF]), "non-minimal length"),
        (rawFrame(2, [], lengthBytes: [0x80, 0, 0, 0, 0, 1, 0, 0]), "64-bit length with top bit set"),
        (rawFrame(9, [UInt8](repeating: 0, count: 126)), "control frame over 125 bytes"),
        (rawFrame(9, [1], fin: false), "fragmented control frame"),
        (rawFrame(0, [1]), "continuation without a message"),
        (rawFrame(2, [1], fin: false) + rawFrame(2, [2]), "new message inside a fragmented one"),
    ]
    for (bytes, why) in bad {
        var s = server()
        #expect(events(&s, bytes, splits: [1]) == [.fail(.protocolError, why)], "\(why)")
        // Finished: later input is ignored.
        s.feed(rawFrame(2, [1]))
        #expect(s.next() == .needMore)
    }
}

@Test func reassemblesFragmentsAroundControlFrames() {
    let text = Array("héllo wörld".utf8)
    // Split inside the two-byte "é" so each fragment alone is invalid UTF-8.
    let wire = rawFrame(1, Array(text[0..<2]), fin: false) + rawFrame(9, [7]) + rawFrame(0, Array(text[2..<5]), fin: false)
        + rawFrame(10, []) + rawFrame(0, Array(text[5...]))
    var s = server()
    #expect(events(&s, wire, splits: [2, 5]) == [.ping([7]), .pong([]), .text("héllo wörld")])
}

@Test func oversizeMessagesFailWith1009BeforeThePayloadArrives() {
    var s = server(max: 1000)
    // Only the header of a 2000-byte frame: the codec refuses without waiting for the payload.
    let header = Array(rawFrame(2, [UInt8](repeating: 0, count: 2000)).prefix(8))
    #expect(events(&s, header) == [.fail(.messageTooBig, "message too big")])
    var f = server(max: 1000)
    let frags = rawFrame(2, [UInt8](repeating: 1, count: 600), fin: false) + rawFrame(0, [UInt8](repeating: 1, count: 600))
    #expect(events(&f, frags) == [.fail(.messageTooBig, "message too big")])
    var ok = server(max: 1000)
    #expect(events(&ok, rawFrame(2, [UInt8](repeating: 1, count: 1000))) == [.binary([UInt8](repeating: 1, count: 1000))])
}

@Test func textMustBeUTF8() {
    var s = server()
    #expect(events(&s, rawFrame(1, [0xC0, 0x80])) == [.fail(.invalidPayload, "text not UTF-8")])
}

@Test func closeFramesAreValidated() {
    func close(_ payload: [UInt8]) -> [WebSocketCodec.Event] { var s = server(); return events(&s, rawFrame(8, payload)) }
    #expect(close([]) == [.close(.noStatus, "")])
    #expect(close([0x03, 0xE8] + Array("bye".utf8)) == [.close(.normal, "bye")])
    #expect(close([0x0F, 0xA0]) == [.close(WebSocketCloseCode(4000), "")])
    #expect(close([0x03]) == [.fail(.protocolError, "close payload of one byte")])
    for bad: UInt16 in [0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000] {
        #expect(close([UInt8(bad >> 8), UInt8(bad & 0xFF)]) == [.fail(.protocolError, "invalid close code")], "\(bad)")
    }
    #expect(close([0x03, 0xE8, 0xFF]) == [.fail(.invalidPayload, "close reason not UTF-8")])
}

@Test func closePayloadIsCutOnACharacterBoundary() {
    let p = WebSocketCodec.closePayload(.goingAway, reason: String(repeating: "é", count: 100))
    #expect(p.count <= 125)
    #expect(p.count == 124) // 2 code bytes + 61 two-byte characters
    #expect(isValidUTF8(p[2...]))
    #expect(Array(p[0..<2]) == [0x03, 0xE9])
}

@Test func utf8ValidatorFollowsRFC3629() {
    #expect(isValidUTF8(Array("ascii ✓ 😀".utf8)))
    for bad: [UInt8] in [[0x80], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80],
                         [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xE2, 0x82], [0xFF]] {
        #expect(!isValidUTF8(bad), "\(bad)")
    }
}
