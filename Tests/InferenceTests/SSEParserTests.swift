import Testing
@testable import Inference

@Suite struct SSEParserTests {
    /// A stream using every rule: BOM, LF/CRLF/CR line ends, comments, multi-line data, event
    /// types, ids, retry, a field with no colon, an empty data line, an event without data, an
    /// unknown field, and a trailing event left incomplete.
    static let stream: [UInt8] = Array("\u{FEFF}: keepalive\r\ndata: one\n\nevent: add\rdata:two\r\ndata:  lines\r\rid: 7\ndata\n\nevent: nodata\n\nretry: 250\nfoo: bar\ndata: é ✓\n\ndata: cut".utf8)

    static let expected: [SSEEvent] = [
        SSEEvent(type: "message", data: "one"),
        SSEEvent(type: "add", data: "two\n lines"),
        SSEEvent(type: "message", data: "", lastEventID: "7"),
        SSEEvent(type: "message", data: "é ✓", lastEventID: "7"),
    ]

    @Test func wholeStream() {
        var p = SSEParser()
        #expect(p.parse(Self.stream) == Self.expected)
        #expect(p.retryMilliseconds == 250)
        #expect(p.lastEventID == "7")
    }

    @Test func everySplitPoint() {
        for i in 0...Self.stream.count {
            var p = SSEParser()
            let events = p.parse(Array(Self.stream[..<i])) + p.parse(Array(Self.stream[i...]))
            #expect(events == Self.expected, "split at \(i)")
        }
    }

    @Test func everyPairOfSplitPoints() {
        let s = Self.stream
        for i in 0...s.count {
            for j in i...s.count {
                var p = SSEParser()
                let events = p.parse(Array(s[..<i])) + p.parse(Array(s[i..<j])) + p.parse(Array(s[j...]))
                #expect(events == Self.expected, "split at \(i), \(j)")
            }
        }
    }

    @Test func byteByByte() {
        var p = SSEParser()
        let events = Self.stream.flatMap { p.parse([$0]) }
        #expect(events == Self.expected)
    }

    @Test func specExamples() {
        var p = SSEParser()
        #expect(p.parse(Array("data: YHOO\ndata: +2\ndata: 10\n\n".utf8)) == [SSEEvent(data: "YHOO\n+2\n10")])
        var q = SSEParser()
        // "data" alone twice gives "\n"; the final "data:" is never dispatched.
        #expect(q.parse(Array("data\n\ndata\ndata\n\ndata:".utf8)) == [SSEEvent(data: ""), SSEEvent(data: "\n")])
        var r = SSEParser()
        #expect(r.parse(Array("data:test\n\ndata: test\n\n".utf8)) == [SSEEvent(data: "test"), SSEEvent(data: "test")])
    }

    @Test func crThenLFAcrossChunksIsOneLineEnd() {
        var p = SSEParser()
        #expect(p.parse(Array("data: a\r".utf8)).isEmpty)
        // Had the LF counted as a second line end, the event would have been dispatched here.
        #expect(p.parse(Array("\ndata: b\n".utf8)).isEmpty)
        #expect(p.parse(Array("\n".utf8)) == [SSEEvent(data: "a\nb")])
    }

    @Test func bomOnlyAtTheVeryStart() {
        var p = SSEParser()
        // A second BOM is part of the field name "\u{FEFF}data", an unknown field: ignored.
        #expect(p.parse(Array("\u{FEFF}\u{FEFF}data: x\n\ndata: y\n\n".utf8)) == [SSEEvent(data: "y")])
        var q = SSEParser()
        // Bytes that start like a BOM but are not one are content.
        #expect(q.parse([0xEF, 0xBB]) == [])
        #expect(q.parse(Array("x\n\ndata: z\n\n".utf8)) == [SSEEvent(data: "z")])
    }

    @Test func eventTypeResetsAfterDispatch() {
        var p = SSEParser()
        #expect(p.parse(Array("event: a\ndata: 1\n\ndata: 2\n\n".utf8))
                == [SSEEvent(type: "a", data: "1"), SSEEvent(type: "message", data: "2")])
    }

    @Test func idWithNULIsIgnoredAndRetryNeedsDigits() {
        var p = SSEParser()
        _ = p.parse(Array("id: 1\nid: a\u{0}b\nretry: 12x\ndata: d\n\n".utf8))
        #expect(p.lastEventID == "1")
        #expect(p.retryMilliseconds == nil)
    }

    @Test func strayLinesReportedOnlyWhenAsked() {
        let input = Array("{\"error\":\"boom\"}\nerror: {\"message\":\"x\"}\ndata: ok\n\n".utf8)
        var plain = SSEParser()
        #expect(plain.parse(input) == [SSEEvent(data: "ok")])
        var stray = SSEParser(reportsStrayLines: true)
        #expect(stray.parse(input) == [
            SSEEvent(type: SSEEvent.strayLineType, data: "{\"error\":\"boom\"}"),
            SSEEvent(type: SSEEvent.strayLineType, data: "error: {\"message\":\"x\"}"),
            SSEEvent(data: "ok"),
        ])
    }
}
