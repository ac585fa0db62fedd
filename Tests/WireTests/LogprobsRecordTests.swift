import Testing
@testable import Wire

/// Record kind 6 (SPEC: the typed reply stream): the log probabilities of streamed tokens.
@Suite struct LogprobsRecordTests {
    static let entries: [AppMessage.TokenLogprob] = [
        .init(token: "Grüß", logprob: -0.125, bytes: Array("Grüß".utf8),
              top: [.init(token: "Grüß", logprob: -0.125), .init(token: "Hi", logprob: -2.5, bytes: [72, 105])]),
        .init(token: "!", logprob: 0),
    ]

    @Test func logprobsSplitAnywhereReadBackBetweenText() throws {
        let bytes = try ReplyEvent.encode([.text("Grüß!"), .logprobs(Self.entries), .text(" ok")])
        for split in 0...bytes.count {
            var reader = ReplyEventReader()
            let events = try reader.append(Array(bytes[..<split])) + reader.append(Array(bytes[split...]))
            #expect(events == [.text("Grüß!"), .logprobs(Self.entries), .text(" ok")])
            #expect(reader.isAtBoundary)
        }
    }

    @Test func overTwentyAlternativesOrANonFiniteLogprobIsRefused() throws {
        let many = AppMessage.TokenLogprob(token: "a", logprob: -1, top: Array(repeating: .init(token: "b", logprob: -2), count: 21))
        #expect(throws: WireError.self) { try ReplyEvent.encode([.logprobs([many])]) }
        #expect(throws: WireError.self) { try ReplyEvent.encode([.logprobs([.init(token: "a", logprob: -.infinity)])]) }
        // 21 alternatives written by hand: the reader refuses them as well.
        var good = try ReplyEvent.encode([.logprobs([.init(token: "a", logprob: -1)])])
        good[good.count - 1] = 21
        var reader = ReplyEventReader()
        #expect(throws: WireError.self) { _ = try reader.append(good) }
    }

    @Test func unknownFlagBitsAreRefused() throws {
        var bytes = try ReplyEvent.encode([.logprobs([.init(token: "a", logprob: -1)])])
        // header 5 | count 2 | token str16 (3) | f64 8 | flags
        bytes[5 + 2 + 3 + 8] = 0x02
        var reader = ReplyEventReader()
        #expect(throws: WireError.self) { _ = try reader.append(bytes) }
    }
}
