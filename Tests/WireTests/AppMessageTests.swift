// Application messages: round trips, signed bytes, validation, unknown types, list bounds.
import Testing
@testable import Wire

@Test(arguments: Sample.messages)
func messageRoundTrips(_ message: AppMessage) throws {
    let bytes = try message.encode()
    #expect(bytes[0] == message.typeCode)
    #expect(try AppMessage.decode(bytes) == message)
}

@Test func advertSignedBytesAreTheBodyWithoutSignature() throws {
    guard case .advert(let advert) = Sample.messages[0] else { Issue.record("fixture"); return }
    let encoded = try AppMessage.advert(advert).encode()
    let signed = try advert.signedBytes()
    let domain = Array("homebase-advert-v1".utf8) + [0]
    #expect(Array(signed.prefix(domain.count)) == domain)
    #expect(Array(signed.dropFirst(domain.count)) == Array(encoded.dropFirst().dropLast(64)))
    #expect(Array(encoded.suffix(64)) == Sample.sig.bytes)
    // The signature is not in what is signed; every other field is.
    var other = advert
    other.signature = .repeating(0)
    #expect(try other.signedBytes() == signed)
    other.sequence += 1
    #expect(try other.signedBytes() != signed)
}

@Test func rosterSignedBytesAreTheBodyWithoutSignature() throws {
    let roster = AppMessage.Roster(accountKey: Sample.key, version: 0x0102, deviceRecords: [[0xAB]], signature: Sample.sig)
    let expected = Array("homebase-roster-v1".utf8) + [0] + Sample.key.bytes + [0, 0, 0, 0, 0, 0, 1, 2]
        + [0, 1] + [0, 0, 0, 1, 0xAB]
    #expect(try roster.signedBytes() == expected)
    #expect(try AppMessage.roster(roster).encode() == [0x35] + expected.dropFirst(19) + Sample.sig.bytes)
}

@Test func unknownCapabilityBitsSurviveARoundTrip() throws {
    guard case .advert(let advert) = try AppMessage.decode(try Sample.messages[0].encode()) else { Issue.record("type"); return }
    #expect(advert.models[1].capabilities.rawValue == 0x82)
    #expect(advert.models[1].capabilities.contains(.vision))
}

@Test func unknownMessageTypesAreSkipped() throws {
    for type: UInt8 in [0x00, 0x03, 0x17, 0x41, 0xFF] {
        #expect(try AppMessage.decode([type, 1, 2, 3]) == .unknown(type: type))
    }
    #expect(throws: WireError.truncated(field: "message type")) { try AppMessage.decode([]) }
}

@Test func invalidUTF8AndRolesAreErrors() throws {
    var chunk = try AppMessage.chunk(requestID: Sample.id, text: "ab").encode()
    chunk[chunk.count - 1] = 0xFF
    #expect(throws: WireError.invalidUTF8(field: "text")) { try AppMessage.decode(chunk) }
    let delta = AppMessage.syncDelta(.init(conversationID: Sample.id, basePrefixHash: Sample.hash,
                                           appended: [.init(role: .user, content: "x")], resultingPrefixHash: Sample.hash))
    var bytes = try delta.encode()
    bytes[1 + 16 + 32 + 2] = 9  // the role byte
    #expect(throws: WireError.invalidValue(field: "role", value: 9)) { try AppMessage.decode(bytes) }
    bytes[1 + 16 + 32 + 2] = 0
    #expect(throws: WireError.invalidValue(field: "role", value: 0)) { try AppMessage.decode(bytes) }
}

@Test func optionalPresenceBytesAreStrict() throws {
    var invite = try Sample.messages.first { if case .invite(let i) = $0 { i.admissionToken == nil } else { false } }!.encode()
    invite[invite.count - 1] = 2
    #expect(throws: WireError.invalidValue(field: "token present", value: 2)) { try AppMessage.decode(invite) }
}

@Test func hugeCountsFailWithoutAllocating() {
    // A roster claiming 65,535 records in a few bytes: refused before reserving anything.
    let roster: [UInt8] = [0x35] + [UInt8](repeating: 0, count: 32 + 8) + [0xFF, 0xFF, 0, 0, 0, 0]
    #expect(throws: WireError.truncated(field: "device records")) { try AppMessage.decode(roster) }
    // A u32 content length of 4 GiB in a tiny message.
    let chunk: [UInt8] = [0x12] + Sample.id.bytes + [0xFF, 0xFF, 0xFF, 0xFF, 0x41]
    #expect(throws: WireError.truncated(field: "text")) { try AppMessage.decode(chunk) }
}

@Test func requestOptionsCarryInlineAndContinuation() throws {
    let plain = AppMessage.Request(requestID: Sample.id, model: "m", conversationID: Sample.id, prefixHash: .zero,
                                   messages: [], inline: false, maxTokens: 1, temperaturePerMille: 2)
    let bytes = try AppMessage.request(plain).encode()
    #expect(bytes[bytes.count - 7] == 0)  // options byte before max tokens (4) and temperature (2)
    var withBits = plain
    withBits.inline = true
    withBits.continuation = "So"
    let b2 = try AppMessage.request(withBits).encode()
    #expect(b2[b2.count - 13] == 0x03)  // options, then 6 bytes, then u32 length 2 and "So"
    var reserved = bytes
    reserved[reserved.count - 7] = 0x80  // reserved bits are ignored
    #expect(try AppMessage.decode(reserved) == .request(plain))
}

@Test func partsAreValidatedOnDecode() throws {
    let header: [UInt8] = [0x40] + Sample.id.bytes
    #expect(throws: WireError.badPartIndex(index: 2, count: 2)) { try AppMessage.decode(header + [0, 2, 0, 2, 0, 0, 0, 9]) }
    #expect(throws: WireError.badPartIndex(index: 0, count: 0)) { try AppMessage.decode(header + [0, 0, 0, 0, 0, 0, 0, 9]) }
    #expect(throws: WireError.badPartIndex(index: 0, count: 5)) { try AppMessage.decode(header + [0, 0, 0, 5, 0, 0, 0, 4]) }
    #expect(throws: WireError.tooLarge(field: "part bytes", length: 2, limit: 1)) {
        try AppMessage.decode(header + [0, 0, 0, 1, 0, 0, 0, 1, 7, 7])
    }
}

/// `grant-terms` (0x3d): 17 bytes of body exactly; reserved flag bits are ignored, so a newer
/// host's terms still read as what this version understands.
@Test func grantTermsAreExactAndIgnoreReservedFlags() throws {
    let bytes = try AppMessage.grantTerms(.init(grantID: Sample.id, tools: true)).encode()
    #expect(bytes == [0x3D] + Sample.id.bytes + [0x01])
    #expect(try AppMessage.decode([0x3D] + Sample.id.bytes + [0xFE]) == .grantTerms(.init(grantID: Sample.id, tools: false)))
    #expect(try AppMessage.decode([0x3D] + Sample.id.bytes + [0x03]) == .grantTerms(.init(grantID: Sample.id, tools: true)))
    #expect(throws: WireError.self) { try AppMessage.decode(Array(bytes.dropLast())) }
    #expect(throws: WireError.self) { try AppMessage.decode(bytes + [0]) }
}

@Test func theEmbeddingCapabilityIsBitThree() {
    #expect(AppMessage.Capabilities.embedding.rawValue == 0x08)
    #expect(!AppMessage.Capabilities([.embedding]).contains(.completion))
}
