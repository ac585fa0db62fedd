// Relay frames: round trips, header rules, limits, unknown types, the auth transcript.
import Testing
@testable import Wire

@Test(arguments: Sample.frames)
func frameRoundTrips(_ frame: RelayFrame) throws {
    let bytes = try frame.encode()
    #expect(bytes[0] == frame.typeCode)
    #expect(bytes[1] == 0)
    #expect(Int(bytes[2]) << 24 | Int(bytes[3]) << 16 | Int(bytes[4]) << 8 | Int(bytes[5]) == bytes.count - 6)
    #expect(try RelayFrame.decode(bytes) == frame)
}

@Test func sendLayoutIsExact() throws {
    let frame = RelayFrame.send(.init(recipient: Sample.key2, deliveryClass: .mail, frameID: Sample.id,
                                      ttlSeconds: 0x0102_0304, collapseKey: [0xEE], sealed: [0xAB]))
    let expected: [UInt8] = [0x10, 0, 0, 0, 0, 56] + [UInt8](repeating: 0x22, count: 32) + [2]
        + [UInt8](repeating: 0x44, count: 16) + [1, 2, 3, 4] + [1, 0xEE] + [0xAB]
    #expect(try frame.encode() == expected)
}

@Test func reservedFlagsAreIgnored() throws {
    var bytes = try RelayFrame.ping(5).encode()
    bytes[1] = 0xFF
    #expect(try RelayFrame.decode(bytes) == .ping(5))
}

@Test func unknownTypesAreSkipped() throws {
    for type: UInt8 in [0x00, 0x06, 0x1A, 0x7F, 0xFF] {
        let bytes: [UInt8] = [type, 0, 0, 0, 0, 3, 9, 9, 9]
        #expect(try RelayFrame.decode(bytes) == .unknown(type: type))
    }
    // Even an unknown type may not exceed the body limit.
    #expect(throws: WireError.tooLarge(field: "frame body", length: Limits.maxFrameBody + 1, limit: Limits.maxFrameBody)) {
        try RelayFrame.decode([0x7F, 0, 0, 1, 1, 1])
    }
}

@Test func oversizeIsRejectedFromTheHeaderAlone() {
    #expect(throws: WireError.tooLarge(field: "frame body", length: 0xFFFF_FFFF, limit: Limits.maxFrameBody)) {
        try RelayFrame.decode([0x10, 0, 0xFF, 0xFF, 0xFF, 0xFF])
    }
    let big = RelayFrame.send(.init(recipient: Sample.key, deliveryClass: .live, frameID: Sample.id, ttlSeconds: 0,
                                    sealed: [UInt8](repeating: 0, count: Limits.maxSealed + 1)))
    #expect(throws: WireError.tooLarge(field: "sealed", length: Limits.maxSealed + 1, limit: Limits.maxSealed)) {
        try big.encode()
    }
}

@Test func lengthMustMatchTheMessage() throws {
    let bytes = try RelayFrame.ack(frameID: Sample.id).encode()
    #expect(throws: WireError.trailingBytes(count: 1)) { try RelayFrame.decode(bytes + [0]) }
    #expect(throws: WireError.truncated(field: "frame body")) { try RelayFrame.decode(bytes.dropLast()) }
    // A body longer than its fields: the length says 17, the ack body is 16.
    var long = bytes + [0]
    long[5] = 17
    #expect(throws: WireError.trailingBytes(count: 1)) { try RelayFrame.decode(long) }
}

@Test func badClassAndLiveCollapseKeyAreErrors() throws {
    var bytes = try Sample.frames[6].encode()  // live send
    bytes[6 + 32] = 3
    #expect(throws: WireError.badClass(3)) { try RelayFrame.decode(bytes) }
    bytes[6 + 32] = 0
    #expect(throws: WireError.badClass(0)) { try RelayFrame.decode(bytes) }
    let live = RelayFrame.send(.init(recipient: Sample.key, deliveryClass: .live, frameID: Sample.id, ttlSeconds: 0,
                                     collapseKey: [1], sealed: []))
    #expect(throws: WireError.collapseKeyOnLive) { try live.encode() }
    var mail = try RelayFrame.send(.init(recipient: Sample.key, deliveryClass: .mail, frameID: Sample.id, ttlSeconds: 0,
                                         collapseKey: [1], sealed: [])).encode()
    mail[6 + 32] = DeliveryClass.live.rawValue
    #expect(throws: WireError.collapseKeyOnLive) { try RelayFrame.decode(mail) }
}

@Test func fieldLimitsAreChecked() {
    let longKey = RelayFrame.send(.init(recipient: Sample.key, deliveryClass: .mail, frameID: Sample.id, ttlSeconds: 0,
                                        collapseKey: [UInt8](repeating: 0, count: 65), sealed: []))
    #expect(throws: WireError.tooLarge(field: "collapse key", length: 65, limit: 64)) { try longKey.encode() }
    let longText = RelayFrame.error(.init(code: .internalError, text: String(repeating: "x", count: 1025)))
    #expect(throws: WireError.tooLarge(field: "error text", length: 1025, limit: 1024)) { try longText.encode() }
    // A collapse-key length byte above 64 fails on decode too.
    var body: [UInt8] = [UInt8](repeating: 0, count: 32) + [2] + [UInt8](repeating: 0, count: 16) + [0, 0, 0, 0] + [65]
    body += [UInt8](repeating: 0, count: 65)
    let frame: [UInt8] = [0x10, 0, 0, 0, 0, UInt8(body.count)] + body
    #expect(throws: WireError.tooLarge(field: "collapse key", length: 65, limit: 64)) { try RelayFrame.decode(frame) }
}

@Test func authTranscriptIsTheDocumentedBytes() throws {
    let t = try RelayAuth.transcript(origin: "wss://r:1", challenge: Sample.hash, deviceKey: Sample.key)
    let expected = Array("homebase-relay-auth-v1".utf8) + [0, 0, 9] + Array("wss://r:1".utf8)
        + [UInt8](repeating: 0x55, count: 32) + [UInt8](repeating: 0x11, count: 32)
    #expect(t == expected)
    #expect(RelayAuth.accountBinding(deviceKey: Sample.key) == Array("homebase-account-device-v1".utf8) + [0] + Sample.key.bytes)
    #expect(throws: WireError.self) { try RelayAuth.transcript(origin: String(repeating: "o", count: 513), challenge: Sample.hash, deviceKey: Sample.key) }
}

@Test func sendersAndErrorCodes() throws {
    #expect(RelayFrame.send(.init(recipient: Sample.key, deliveryClass: .live, frameID: Sample.id, ttlSeconds: 0, sealed: [])).sender == .device)
    #expect(RelayFrame.receive(.init(sender: Sample.key, deliveryClass: .live, frameID: Sample.id, heldMs: 0, sealed: [])).sender == .relay)
    #expect(RelayFrame.ping(1).sender == .either)
    #expect(WireError.tooLarge(field: "frame body", length: 1, limit: 0).relayErrorCode == .frameTooLarge)
    #expect(WireError.badClass(9).relayErrorCode == .protocolViolation)
}

@Test func descriptionsHideContents() {
    let invite = Sample.messages.first { if case .invite = $0 { true } else { false } }!
    #expect(!"\(invite)".contains("9999"))
    if case .invite(let i) = invite { #expect("\(i.inviteSecret)" == "<secret>"); #expect(!"\(i)".contains("9999")) }
    let request = Sample.messages.first { if case .request = $0 { true } else { false } }!
    #expect(!"\(request)".contains("Be brief"))
    #expect(!String(reflecting: request).contains("Be brief"))
}
