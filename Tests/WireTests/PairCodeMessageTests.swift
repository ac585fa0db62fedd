// pair-code-request (0x39) and pair-code (0x3a): round trips, the exact byte layout, and every
// malformed body refused with its own error.
import Testing
@testable import Wire

@Suite struct PairCodeMessageTests {
    static let messages: [AppMessage] = [
        .pairCodeRequest(.init(requestID: Sample.id)),
        .pairCodeRequest(.init(requestID: Sample.id, validMs: 600_000, maxTries: 3)),
        .pairCode(.init(requestID: Sample.id, result: .issued(code: "hbpair1-abc", expiresMs: 1_700_000_000_000, maxTries: 3))),
        .pairCode(.init(requestID: Sample.id, result: .refused(.notInAccount, text: "not a device of the account"))),
        .pairCode(.init(requestID: Sample.id, result: .refused(.noAccountKey, text: ""))),
        .pairCode(.init(requestID: Sample.id, result: .refused(.unavailable, text: "store"))),
        .pairCode(.init(requestID: Sample.id, result: .refused(.other(77), text: "newer reason"))),
    ]

    @Test(arguments: messages)
    func roundTrips(_ message: AppMessage) throws {
        let bytes = try message.encode()
        #expect(try AppMessage.decode(bytes) == message)
    }

    @Test func theLayoutIsTheDocumentedOne() throws {
        let request = try AppMessage.pairCodeRequest(.init(requestID: Sample.id, validMs: 0x0102_0304, maxTries: 5)).encode()
        #expect(request == [0x39] + Sample.id.bytes + [1, 2, 3, 4, 5])

        let issued = try AppMessage.pairCode(.init(requestID: Sample.id, result: .issued(code: "ab", expiresMs: 0x0A0B, maxTries: 3))).encode()
        #expect(issued == [0x3A] + Sample.id.bytes + [0, 0, 2, 0x61, 0x62, 0, 0, 0, 0, 0, 0, 0x0A, 0x0B, 3])

        let refused = try AppMessage.pairCode(.init(requestID: Sample.id, result: .refused(.noAccountKey, text: "x"))).encode()
        #expect(refused == [0x3A] + Sample.id.bytes + [2, 0, 1, 0x78])
    }

    @Test func malformedBodiesAreRefused() throws {
        let request = try AppMessage.pairCodeRequest(.init(requestID: Sample.id, validMs: 1, maxTries: 1)).encode()
        #expect(throws: WireError.truncated(field: "max tries")) { try AppMessage.decode(Array(request.dropLast())) }
        #expect(throws: WireError.trailingBytes(count: 1)) { try AppMessage.decode(request + [0]) }
        #expect(throws: WireError.truncated(field: "request id")) { try AppMessage.decode([0x39, 1, 2]) }

        let issued = try AppMessage.pairCode(.init(requestID: Sample.id, result: .issued(code: "ab", expiresMs: 1, maxTries: 3))).encode()
        #expect(throws: WireError.truncated(field: "max tries")) { try AppMessage.decode(Array(issued.dropLast())) }
        var badUTF8 = issued
        badUTF8[1 + 16 + 1 + 2] = 0xFF  // the code's first byte
        #expect(throws: WireError.invalidUTF8(field: "code")) { try AppMessage.decode(badUTF8) }
        let long = [0x3A] + Sample.id.bytes + [0, 0x04, 0x01] + [UInt8](repeating: 0x61, count: 1025) + [UInt8](repeating: 0, count: 9)
        #expect(throws: WireError.tooLarge(field: "code", length: 1025, limit: Limits.maxPairingCodeText)) { try AppMessage.decode(long) }

        let refused = try AppMessage.pairCode(.init(requestID: Sample.id, result: .refused(.unavailable, text: "x"))).encode()
        #expect(throws: WireError.truncated(field: "text")) { try AppMessage.decode(Array(refused.dropLast())) }
        #expect(throws: WireError.trailingBytes(count: 2)) { try AppMessage.decode(refused + [0, 0]) }
    }

    @Test func aRefusalCannotBeEncodedAsIssuedAndTheCodeIsNeverDescribed() throws {
        #expect(throws: WireError.invalidValue(field: "result", value: 0)) {
            try AppMessage.pairCode(.init(requestID: Sample.id, result: .refused(.other(0), text: ""))).encode()
        }
        let secret = "hbpair1-secretsecretsecret"
        let m = AppMessage.PairCode(requestID: Sample.id, result: .issued(code: secret, expiresMs: 1, maxTries: 3))
        #expect(!"\(m)".contains("secret") && !"\(AppMessage.pairCode(m))".contains("secret") && !String(reflecting: m.result).contains("secret"))
        #expect("\(m)".contains("issued"))
    }
}

// pair-code-outcome (0x3b): what became of a code a sibling asked for.
@Suite struct PairCodeOutcomeMessageTests {
    static let codeID = Bytes8((0..<8).map { UInt8(0xC0 + $0) })!

    static let messages: [AppMessage] = [
        .pairCodeOutcome(.init(requestID: Sample.id, codeID: codeID, outcome: .used, wrongTries: 2, deviceRecord: [1, 2, 3])),
        .pairCodeOutcome(.init(requestID: Sample.id, codeID: codeID, outcome: .burnt, wrongTries: 3)),
        .pairCodeOutcome(.init(requestID: Sample.id, codeID: codeID, outcome: .other(9), wrongTries: 0)),
    ]

    @Test(arguments: messages)
    func roundTrips(_ message: AppMessage) throws {
        #expect(try AppMessage.decode(try message.encode()) == message)
    }

    @Test func theLayoutIsTheDocumentedOne() throws {
        let burnt = try AppMessage.pairCodeOutcome(.init(requestID: Sample.id, codeID: Self.codeID, outcome: .burnt, wrongTries: 3)).encode()
        #expect(burnt == [0x3B] + Sample.id.bytes + Self.codeID.bytes + [2, 3, 0, 0, 0, 0])
        let used = try AppMessage.pairCodeOutcome(.init(requestID: Sample.id, codeID: Self.codeID, outcome: .used, wrongTries: 0,
                                                        deviceRecord: [0xAB])).encode()
        #expect(used == [0x3B] + Sample.id.bytes + Self.codeID.bytes + [1, 0, 0, 0, 0, 1, 0xAB])
    }

    @Test func malformedBodiesAreRefused() throws {
        let m = try AppMessage.pairCodeOutcome(.init(requestID: Sample.id, codeID: Self.codeID, outcome: .used, wrongTries: 0,
                                                     deviceRecord: [1, 2])).encode()
        #expect(throws: WireError.self) { try AppMessage.decode(Array(m.dropLast())) }
        #expect(throws: WireError.trailingBytes(count: 1)) { try AppMessage.decode(m + [0]) }
        #expect(throws: WireError.truncated(field: "code id")) { try AppMessage.decode([0x3B] + Sample.id.bytes + [1, 2]) }
        #expect(throws: WireError.truncated(field: "wrong tries")) { try AppMessage.decode([0x3B] + Sample.id.bytes + Self.codeID.bytes + [2]) }
    }

    /// An older receiver knows no 0x3b: to it the message is `.unknown` and skipped. The check
    /// here is that the type byte is one this version's own table reserved for nothing else.
    @Test func theTypeIsNewAndDescribedWithoutTheRecord() throws {
        let m = AppMessage.pairCodeOutcome(.init(requestID: Sample.id, codeID: Self.codeID, outcome: .burnt, wrongTries: 3))
        #expect(m.typeCode == 0x3B)
        #expect("\(m)".contains("outcome 2") && "\(m)".contains("3 wrong"))
    }
}
