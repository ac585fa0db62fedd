import Testing
@testable import Wire

@Suite struct InviteCodeTests {
    let invite = AppMessage.Invite(relayURL: "wss://relay.example", hostSigningKey: .repeating(1), hostHPKEKey: .repeating(2),
                                   inviteSecret: .repeating(3), models: ["tiny", "llama3.1:8b"], ratePerMinute: 20,
                                   expiresMs: 1_800_000_000_000)
    let record = [UInt8](repeating: 9, count: 150)

    @Test func roundTripsAndIsURLSafeText() throws {
        let code = try InviteCode.encode(invite, hostRecord: record)
        #expect(code.hasPrefix("hb-invite-"))
        #expect(code.dropFirst(10).allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        let (back, hostRecord) = try InviteCode.decode(code)
        #expect(back == invite && hostRecord == record)
    }

    @Test func copyErrorsAreNamed() throws {
        let code = try InviteCode.encode(invite, hostRecord: record)
        func why(_ text: String) -> String {
            do { _ = try InviteCode.decode(text); return "decoded" } catch { return "\(error)" }
        }
        #expect(why("hb-nope").contains("does not start with hb-invite-"))
        #expect(why(String(code.dropLast())).contains("checksum") || why(String(code.dropLast())).contains("base64url"))
        var chars = Array(code); chars[40] = chars[40] == "A" ? "B" : "A"
        #expect(why(String(chars)).contains("checksum mismatch"))
        #expect(why(code + "=").contains("base64url"))
        #expect(why("hb-invite-AAAA").contains("too short"))
        let grant = try AppMessage.grant(.init(grantID: .zero, models: [], ratePerMinute: 0, expiresMs: 0)).encode()
        var b: [UInt8] = [0, UInt8(grant.count)] + grant
        let crc = InviteCode.crc32(b)
        b += [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        #expect(why("hb-invite-" + Base64URL.encode(b)).contains("another message than an invite"))
    }

    @Test func base64URLMatchesRFC4648AndIsCanonical() {
        #expect(Base64URL.encode(Array("foobar".utf8)) == "Zm9vYmFy")
        #expect(Base64URL.encode(Array("fooba".utf8)) == "Zm9vYmE")
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URL.decode("Zm9vYmE") == Array("fooba".utf8))
        #expect(Base64URL.decode("Zm9vYmF") == nil)  // non-zero unused bits
        #expect(Base64URL.decode("Z") == nil)
        #expect(InviteCode.crc32(Array("123456789".utf8)) == 0xCBF4_3926)  // the CRC-32 check value
    }
}

/// Invites naming other nodes of the relay's cluster (SPEC "Alternates").
@Suite struct InviteAlternatesTests {
    let invite = AppMessage.Invite(relayURL: "wss://relay.example", hostSigningKey: .repeating(1), hostHPKEKey: .repeating(2),
                                   inviteSecret: .repeating(3), models: ["tiny"], ratePerMinute: 20,
                                   expiresMs: 1_800_000_000_000, admissionToken: [0xAD, 0xBE])
    let record = [UInt8](repeating: 9, count: 150)

    @Test func alternatesRoundTripWithAndWithoutAToken() throws {
        for token in [nil, [UInt8]([0xAD])] {
            var i = invite
            i.admissionToken = token
            i.alternates = ["wss://node2.relay.example", "wss://node3.relay.example"]
            let (back, hostRecord) = try InviteCode.decode(try InviteCode.encode(i, hostRecord: record))
            #expect(back == i && back.alternates.count == 2 && hostRecord == record)
        }
    }

    @Test func noAlternatesIsTheOldEncoding() throws {
        let plain = try AppMessage.invite(invite).encode()
        var with = invite
        with.alternates = ["wss://node2.relay.example"]
        let longer = try AppMessage.invite(with).encode()
        #expect(Array(longer.prefix(plain.count)) == plain && longer.count == plain.count + 2 + 2 + 25)
        #expect(try AppMessage.decode(plain) == .invite(invite))
    }

    @Test func tooManyOrTooLongAlternatesAreRefused() throws {
        var many = invite
        many.alternates = (0..<9).map { "wss://node\($0).relay.example" }
        #expect(throws: WireError.self) { try AppMessage.invite(many).encode() }
        var long = invite
        long.alternates = ["wss://" + String(repeating: "a", count: 600)]
        #expect(throws: WireError.self) { try AppMessage.invite(long).encode() }
        // Decoding refuses them too: nine written by hand after the token.
        var b = try AppMessage.invite(invite).encode()
        b += [0, 9] + (0..<9).flatMap { _ in [UInt8(0), 1, 0x61] }
        #expect(throws: WireError.self) { try AppMessage.decode(b) }
        // An empty list is not the field: trailing bytes, as before alternates.
        #expect(throws: WireError.trailingBytes(count: 2)) { try AppMessage.decode(try AppMessage.invite(invite).encode() + [0, 0]) }
    }
}
