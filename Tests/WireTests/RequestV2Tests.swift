// Version 2 of the inference schema: the request's layout and versioning, the options map's
// forward compatibility, and the typed reply stream.
import Testing
@testable import Wire

struct RequestV2Tests {
    @Test func aRichRequestIsTypeSixteenAndRoundTrips() throws {
        let bytes = try AppMessage.request(Sample.richRequest).encode()
        #expect(bytes[0] == 0x16)
        #expect(bytes[17] == 2)  // version, after the request id
        #expect(try AppMessage.decode(bytes) == .request(Sample.richRequest))
    }

    @Test func aPlainRequestWithoutTemperatureSendsNoTemperature() throws {
        let r = AppMessage.Request(requestID: Sample.id, model: "m", conversationID: Sample.id, prefixHash: .zero,
                                   messages: [.init(role: .user, content: "hi")], inline: true)
        guard case .request(let back) = try AppMessage.decode(try AppMessage.request(r).encode()) else {
            Issue.record("type"); return
        }
        #expect(back.options.temperature == nil)
        #expect(back.options.maxTokens == nil)
        #expect(Array(try AppMessage.request(r).encode().suffix(2)) == [0, 0])  // an empty options map
    }

    @Test func versionOneStillDecodesAsTextOnlyAndRefusesWhatItCannotSay() throws {
        let v1 = AppMessage.Request(requestID: Sample.id, model: "m", conversationID: Sample.id, prefixHash: .zero,
                                    messages: [.init(role: .user, content: "hi")], inline: true, maxTokens: 0,
                                    temperaturePerMille: 700)
        let bytes = try AppMessage.request(v1).encode()
        #expect(bytes[0] == 0x10)
        guard case .request(let back) = try AppMessage.decode(bytes) else { Issue.record("type"); return }
        #expect(back.version == 1 && back.options.temperature == 0.7 && back.options.maxTokens == nil)
        var rich = back
        rich.messages = Sample.richChat
        #expect(throws: WireError.self) { try AppMessage.request(rich).encode() }
        var tooled = back
        tooled.tools = [.init(name: "t", description: "", parametersJSON: "{}")]
        #expect(throws: WireError.self) { try AppMessage.request(tooled).encode() }
    }

    @Test func aLaterVersionDecodesToItsRequestIDAlone() throws {
        // A guest newer than this build: request id, version 3, then a layout we cannot know.
        let bytes: [UInt8] = [0x16] + Sample.id.bytes + [3] + [0xDE, 0xAD, 0xBE, 0xEF]
        guard case .request(let r) = try AppMessage.decode(bytes) else { Issue.record("type"); return }
        #expect(r.requestID == Sample.id && r.version == 3 && r.messages.isEmpty)
        #expect(throws: WireError.self) { try AppMessage.decode([0x16] + Sample.id.bytes + [1]) }
    }

    @Test func unknownOptionKeysAreSkippedAndNamedCriticalOnesToo() throws {
        let r = AppMessage.Request(requestID: Sample.id, model: "m", conversationID: Sample.id, prefixHash: .zero,
                                   messages: [.init(role: .user, content: "hi")], inline: true)
        var bytes = try AppMessage.request(r).encode()
        #expect(Array(bytes.suffix(2)) == [0, 0])
        bytes.removeLast(2)
        // 0x0042 (ordinary, 3 bytes), temperature 0.5, 0x8043 (critical, empty).
        bytes += [0, 3] + [0x00, 0x42, 0, 0, 0, 3, 1, 2, 3]
        bytes += [0x00, 0x02, 0, 0, 0, 8] + Array(withUnsafeBytes(of: (0.5).bitPattern.bigEndian, Array.init))
        bytes += [0x80, 0x43, 0, 0, 0, 0]
        guard case .request(let back) = try AppMessage.decode(bytes) else { Issue.record("type"); return }
        #expect(back.options.unknownKeys == [0x0042, 0x8043])
        #expect(back.options.unknownCritical == [0x8043])
        #expect(back.options.temperature == 0.5)
    }

    @Test func aKnownOptionMustFillItsLengthAndAppearOnce() throws {
        let r = AppMessage.Request(requestID: Sample.id, model: "m", conversationID: Sample.id, prefixHash: .zero,
                                   messages: [.init(role: .user, content: "hi")], inline: true)
        var base = try AppMessage.request(r).encode()
        base.removeLast(2)
        let seed: [UInt8] = [0x00, 0x06, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 7]
        #expect(throws: WireError.self) { try AppMessage.decode(base + [0, 2] + seed + seed) }
        let short: [UInt8] = [0x00, 0x06, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 7, 0]
        #expect(throws: WireError.self) { try AppMessage.decode(base + [0, 1] + short) }
        #expect(throws: WireError.self) {
            var o = AppMessage.RequestOptions()
            o.temperature = .nan
            _ = try AppMessage.request(.init(requestID: Sample.id, model: "m", conversationID: Sample.id, prefixHash: .zero,
                                         messages: [], inline: true, options: o)).encode()
        }
    }

    @Test func aSyncDeltaOfPlainTextStaysVersionOneElseVersionTwo() throws {
        let plain = AppMessage.SyncDelta(conversationID: Sample.id, basePrefixHash: .zero, appended: Sample.chat,
                                         resultingPrefixHash: Sample.hash)
        #expect(try AppMessage.syncDelta(plain).encode()[0] == 0x20)
        let rich = AppMessage.SyncDelta(conversationID: Sample.id, basePrefixHash: .zero, appended: Sample.richChat,
                                        resultingPrefixHash: Sample.hash)
        let bytes = try AppMessage.syncDelta(rich).encode()
        #expect(bytes[0] == 0x21)
        #expect(try AppMessage.decode(bytes) == .syncDelta(rich))
    }

    @Test func aMessageRefusesUnknownFlagsAndPartKinds() throws {
        var m = try Sample.richChat[2].encoded()
        #expect(try AppMessage.ChatMessage.decode(m) == Sample.richChat[2])
        m[1] = 0x03
        #expect(throws: WireError.self) { try AppMessage.ChatMessage.decode(m) }
        m = try Sample.richChat[0].encoded()
        m[4] = 9  // the first part's kind
        #expect(throws: WireError.self) { try AppMessage.ChatMessage.decode(m) }
    }
}

struct ReplyEventTests {
    let events: [ReplyEvent] = [
        .ignoredOptions([0x0042]), .reasoning("hmm"), .text("Grüß "), .text("👋"),
        .toolCallDelta(.init(index: 0, id: "call_1", name: "look", arguments: "")),
        .toolCallDelta(.init(index: 0, arguments: "{\"x\":")), .toolCallDelta(.init(index: 0, arguments: "1}")),
        .toolCall(.init(id: "call_1", name: "look", argumentsJSON: "{\"x\":1}")),
    ]

    @Test func recordsSplitAnywhereReadBackInOrder() throws {
        let bytes = try ReplyEvent.encode(events)
        for cut in stride(from: 1, to: bytes.count, by: 3) {
            var reader = ReplyEventReader()
            var out = try reader.append(Array(bytes[..<cut]))
            out += try reader.append(Array(bytes[cut...]))
            #expect(out == events)
            #expect(reader.isAtBoundary)
        }
    }

    @Test func anUnknownKindIsSkippedAndAHalfRecordIsNotABoundary() throws {
        var reader = ReplyEventReader()
        let out = try reader.append([0x7F, 0, 0, 0, 2, 0xAA, 0xBB] + (try ReplyEvent.encode([.text("ok")])) + [1, 0, 0])
        #expect(out == [.unknown(kind: 0x7F), .text("ok")])
        #expect(!reader.isAtBoundary)
    }

    @Test func malformedRecordsAreErrors() {
        var a = ReplyEventReader()
        #expect(throws: WireError.self) { try a.append([1, 0, 0, 0, 1, 0xFF]) }  // not UTF-8
        var b = ReplyEventReader()
        #expect(throws: WireError.self) { try b.append([3, 0, 0, 0, 3, 0, 0, 0x04]) }  // unknown delta flag
        var c = ReplyEventReader()
        #expect(throws: WireError.self) { try c.append([1, 0x7F, 0xFF, 0xFF, 0xFF]) }  // over the record limit
        #expect(throws: WireError.self) { try ReplyEvent.encode([.unknown(kind: 9)]) }
    }
}
