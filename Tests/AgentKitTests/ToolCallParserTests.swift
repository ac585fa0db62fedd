import AgentKit
import Inference
import Testing

@Suite struct ToolCallParserTests {
    @Test(arguments: dialectSamples)
    func wholeTextGivesTheExpectedEvents(_ sample: DialectSample) {
        #expect(parse([sample.text], family: sample.family) == sample.expected)
    }

    @Test(arguments: dialectSamples)
    func everySingleSplitPointGivesTheSameEvents(_ sample: DialectSample) {
        let count = sample.text.unicodeScalars.count
        for offset in 0...count {
            let events = parse(split(sample.text, at: [offset]), family: sample.family)
            #expect(events == sample.expected, "split at \(offset)")
        }
    }

    @Test(arguments: dialectSamples)
    func randomMultiSplitsGiveTheSameEvents(_ sample: DialectSample) {
        var rng = SplitMix64(state: 0x5EED)
        let count = sample.text.unicodeScalars.count
        for round in 0..<300 {
            let cuts = (0..<Int.random(in: 1...12, using: &rng)).map { _ in Int.random(in: 0...count, using: &rng) }
            let events = parse(split(sample.text, at: cuts), family: sample.family)
            #expect(events == sample.expected, "round \(round), cuts \(cuts.sorted())")
        }
    }

    @Test(arguments: dialectSamples)
    func oneScalarAtATimeGivesTheSameEvents(_ sample: DialectSample) {
        let chunks = sample.text.unicodeScalars.map { String($0) }
        #expect(parse(chunks, family: sample.family) == sample.expected)
    }

    @Test func aPossibleMarkerIsHeldOnlyWhileItCouldStillBeOne() {
        var parser = ToolCallParser(family: .hermes)
        #expect(parser.feed("Hello <tool") == [.text("Hello ")])
        #expect(parser.feed("s>") == [.text("<tools>")])
        #expect(parser.feed("<") == [])
        #expect(parser.feed("b") == [.text("<b")])
        #expect(parser.finish() == [])
    }

    @Test func leadingWhitespaceIsHeldOnlyUntilTheFirstWord() {
        var parser = ToolCallParser(family: .llama3)
        #expect(parser.feed(" \n") == [])
        #expect(parser.feed("Hi") == [.text(" \nHi")])
        #expect(parser.feed(" {\"name\": \"a\"}") == [.text(" {\"name\": \"a\"}")])
    }

    @Test func anUnclosedTagAtTheEndIsStillACallWhenItsJSONIsComplete() {
        let events = parse(["<tool_call>{\"name\": \"a\", \"arguments\": {}}"], family: .hermes)
        #expect(events == [call("c1", "a", "{}")])
    }

    @Test func anUnclosedTagWithBrokenJSONIsMalformed() {
        let events = parse(["<tool_call>{\"name\": \"a\", \"argu"], family: .hermes)
        #expect(events == [.malformed(reason: "<tool_call> is never closed", name: "a",
                                      raw: "{\"name\": \"a\", \"argu")])
    }

    @Test func aCallWithoutANameIsMalformed() {
        let events = parse(["<tool_call>{\"arguments\": {}}</tool_call>"], family: .hermes)
        #expect(events == [.malformed(reason: "the call has no name", name: nil, raw: "{\"arguments\": {}}")])
    }

    @Test func argumentsThatAreNotAnObjectAreMalformed() {
        let events = parse(["<tool_call>{\"name\": \"a\", \"arguments\": [1]}</tool_call>"], family: .hermes)
        #expect(events == [.malformed(reason: "the arguments are not a JSON object", name: "a",
                                      raw: "{\"name\": \"a\", \"arguments\": [1]}")])
    }

    @Test func pythonCodeAfterThePythonTagIsMalformed() {
        let events = parse(["<|python_tag|>brave_search.call(query=\"x\")"], family: .llama3)
        #expect(events == [.malformed(reason: "the call is not JSON", name: nil,
                                      raw: "brave_search.call(query=\"x\")")])
    }

    @Test func aCallLongerThanTheLimitIsMalformedAndTheRestDropped() {
        let long = "<tool_call>{\"name\": \"a\", \"arguments\": {\"x\": \"" + String(repeating: "y", count: 100) + "\"}}</tool_call> tail"
        let events = parse([long], family: .hermes, maxCallBytes: 64)
        #expect(events.count == 1)
        guard case .malformed(let reason, _, _)? = events.first else {
            Issue.record("expected a malformed call, got \(events)"); return
        }
        #expect(reason == "the call is longer than 64 bytes")
    }

    @Test func theParserIsReadyForANewMessageAfterFinish() {
        var parser = ToolCallParser(family: .llama3, idPrefix: "t")
        #expect(parser.feed("hello") == [.text("hello")])
        #expect(parser.feed(" <|py") == [.text(" ")])
        #expect(parser.finish() == [.text("<|py")])
        #expect(parser.feed("{\"name\": \"a\", \"parameters\": {}}") == [call("t1", "a", "{}")])
    }
}
