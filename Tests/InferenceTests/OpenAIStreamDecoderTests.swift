import Foundation
import Testing
@testable import Inference

/// The decoder fed whole SSE streams, through the parser, at every split point.
@Suite struct OpenAIStreamDecoderTests {
    static func decode(_ sse: String, splitAt split: Int? = nil) -> (events: [ChatEvent], error: Error?, done: Bool) {
        let bytes = Array(sse.utf8)
        let pieces = split.map { [Array(bytes[..<$0]), Array(bytes[$0...])] } ?? [bytes]
        var parser = SSEParser(reportsStrayLines: true)
        var decoder = OpenAIStreamDecoder()
        var out: [ChatEvent] = []
        do {
            for piece in pieces {
                for e in parser.parse(piece) { try decoder.handle(e, into: &out) }
            }
            return (out, nil, decoder.isDone)
        } catch {
            return (out, error, decoder.isDone)
        }
    }

    static func chunk(_ delta: String, finish: String? = nil) -> String {
        let f = finish.map { "\"\($0)\"" } ?? "null"
        return "data: {\"choices\":[{\"index\":0,\"delta\":\(delta),\"finish_reason\":\(f)}]}\n\n"
    }

    static let toolStream =
        chunk(#"{"role":"assistant","content":null}"#)
        + chunk(#"{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":""}}]}"#)
        + chunk(#"{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]}"#)
        + chunk(#"{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"get_time","arguments":"{}"}}]}"#)
        + chunk(#"{"tool_calls":[{"index":0,"function":{"arguments":"\"Oslo\"}"}}]}"#)
        + chunk("{}", finish: "tool_calls")
        + "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":30,\"completion_tokens\":12}}\n\n"
        + "data: [DONE]\n\n"

    static let toolEvents: [ChatEvent] = [
        .toolCallDelta(ToolCallDelta(index: 0, id: "call_a", name: "get_weather")),
        .toolCallDelta(ToolCallDelta(index: 0, arguments: #"{"city":"#)),
        .toolCallDelta(ToolCallDelta(index: 1, id: "call_b", name: "get_time", arguments: "{}")),
        .toolCallDelta(ToolCallDelta(index: 0, arguments: #""Oslo"}"#)),
        .toolCall(ToolCall(id: "call_a", name: "get_weather", argumentsJSON: #"{"city":"Oslo"}"#)),
        .toolCall(ToolCall(id: "call_b", name: "get_time", argumentsJSON: "{}")),
        .done(finishReason: "tool_calls", usage: Usage(promptTokens: 30, completionTokens: 12)),
    ]

    @Test func textUsageAndDone() {
        let sse = Self.chunk(#"{"content":"Hel"}"#) + ": ping\n\n" + Self.chunk(#"{"content":"lo"}"#)
            + Self.chunk("{}", finish: "length")
            + "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":21,\"completion_tokens\":2}}\n\ndata: [DONE]\n\n"
        let r = Self.decode(sse)
        #expect(r.error == nil)
        #expect(r.events == [.text("Hel"), .text("lo"),
                             .done(finishReason: "length", usage: Usage(promptTokens: 21, completionTokens: 2))])
    }

    @Test func toolCallsReassembledAtEverySplitPoint() {
        for i in 0...Self.toolStream.utf8.count {
            let r = Self.decode(Self.toolStream, splitAt: i)
            #expect(r.error == nil, "split at \(i)")
            #expect(r.events == Self.toolEvents, "split at \(i)")
        }
    }

    @Test func toolCallWithoutNameIsMalformed() {
        let sse = Self.chunk(#"{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}"#)
            + Self.chunk("{}", finish: "tool_calls")
        #expect(Self.decode(sse).error as? InferenceError == .malformed("tool call 0 has no function name"))
    }

    @Test func toolCallWithoutIndexOrIdGetsPositionalDefaults() {
        let sse = Self.chunk(#"{"tool_calls":[{"function":{"name":"a","arguments":""}},{"function":{"name":"b"}}]}"#)
            + Self.chunk("{}", finish: "tool_calls") + "data: [DONE]\n\n"
        #expect(Self.decode(sse).events == [
            .toolCallDelta(ToolCallDelta(index: 0, name: "a")),
            .toolCallDelta(ToolCallDelta(index: 1, name: "b")),
            .toolCall(ToolCall(id: "call_0", name: "a", argumentsJSON: "{}")),
            .toolCall(ToolCall(id: "call_1", name: "b", argumentsJSON: "{}")),
            .done(finishReason: "tool_calls", usage: nil),
        ])
    }

    /// llama-server and vLLM stream thinking as `reasoning_content`, Ollama's `/v1` as `reasoning`.
    @Test func reasoningDeltasOfBothSpellings() {
        let sse = Self.chunk(#"{"role":"assistant","reasoning_content":"Let me "}"#)
            + Self.chunk(#"{"reasoning":"think."}"#) + Self.chunk(#"{"content":"Yes."}"#)
            + Self.chunk("{}", finish: "stop") + "data: [DONE]\n\n"
        let r = Self.decode(sse)
        #expect(r.error == nil)
        #expect(r.events == [.reasoning("Let me "), .reasoning("think."), .text("Yes."), .done(finishReason: "stop", usage: nil)])
    }

    @Test func noDoneMeansNotComplete() {
        let r = Self.decode(Self.chunk(#"{"content":"Hel"}"#) + Self.chunk("{}", finish: "stop"))
        #expect(r.error == nil)
        #expect(!r.done)
        #expect(!r.events.contains { if case .done = $0 { true } else { false } })
    }

    @Test(arguments: [
        // OpenAI / vLLM: an `error` key in a data payload.
        ("data: {\"error\":{\"message\":\"model crashed\",\"type\":\"server_error\"}}\n\n", "model crashed"),
        ("data: {\"error\":\"plain string\"}\n\n", "plain string"),
        // Anthropic-style and llama.cpp-style `event: error`.
        ("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n", "Overloaded"),
        ("event: error\ndata: upstream gone\n\n", "upstream gone"),
        // Ollama writes its error as a bare JSON line in the middle of the SSE stream.
        ("{\"error\":{\"message\":\"llama runner process has terminated\",\"type\":\"api_error\"}}\n", "llama runner process has terminated"),
        ("{\"error\":\"out of memory\"}\n", "out of memory"),
        // Some llama.cpp builds: an `error:` field line.
        ("error: {\"code\":500,\"message\":\"context shift failed\",\"type\":\"server_error\"}\n\n", "context shift failed"),
    ])
    func inBandErrorShapes(_ tail: String, _ message: String) {
        let r = Self.decode(Self.chunk(#"{"content":"Hel"}"#) + tail + "data: [DONE]\n\n")
        #expect(r.events == [.text("Hel")])
        #expect(r.error as? InferenceError == .inBand(message))
        #expect(!r.done)
    }

    @Test func nonJSONDataIsMalformed() {
        #expect(Self.decode("data: not json\n\n").error as? InferenceError == .malformed("a stream chunk is not a JSON object"))
    }

    @Test func eventsAfterDoneAreIgnored() {
        let r = Self.decode("data: [DONE]\n\n" + Self.chunk(#"{"content":"late"}"#) + "data: {\"error\":\"late\"}\n\n")
        #expect(r.error == nil)
        #expect(r.events == [.done(finishReason: "stop", usage: nil)])
    }

    @Test func longErrorMessagesAreBounded() {
        let long = String(repeating: "x", count: 1000)
        let r = Self.decode("data: {\"error\":\"\(long)\"}\n\n")
        guard case .inBand(let m)? = r.error as? InferenceError else { Issue.record("no in-band error"); return }
        #expect(m.count == HTTPErrorMessage.maxLength + 1)
    }

    /// llama-server's `logprobs: true, top_logprobs: N`: each chunk's `logprobs.content` follows its text.
    @Test func logprobsFollowTheirText() {
        let sse = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":null,"
            + "\"logprobs\":{\"content\":[{\"id\":5,\"token\":\"Hi\",\"logprob\":-0.5,\"bytes\":[72,105],"
            + "\"top_logprobs\":[{\"id\":5,\"token\":\"Hi\",\"logprob\":-0.5,\"bytes\":[72,105]},{\"token\":\"Ho\",\"logprob\":-1.5}]}]}}]}\n\n"
            + Self.chunk("{}", finish: "stop") + "data: [DONE]\n\n"
        for split in [nil, 20, 90] {
            let r = Self.decode(sse, splitAt: split)
            #expect(r.error == nil)
            #expect(r.events == [.text("Hi"),
                                 .logprobs([TokenLogprob(token: "Hi", logprob: -0.5, bytes: [72, 105],
                                                         top: [.init(token: "Hi", logprob: -0.5, bytes: [72, 105]), .init(token: "Ho", logprob: -1.5)])]),
                                 .done(finishReason: "stop", usage: nil)])
        }
    }
}
