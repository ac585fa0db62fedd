import Foundation
import Testing
@testable import Inference

/// The text-delta fast path answers only what JSONDecoder would: on llama-server's chunks, on
/// hand-made edge cases and on thousands of mutated ones, whenever it answers, the decoder
/// decodes the same chunk to the same text and finish reason, with nothing else in it.
@Suite struct OpenAIChunkFastPathTests {
    static let llama = #"{"choices":[{"finish_reason":null,"index":0,"delta":{"content":" the"}}],"created":1795961288,"id":"chatcmpl-qHrhDSUpv5A4PMWaUlBugJ5uLigMxQhC","model":"tiny","system_fingerprint":"b0-unknown","object":"chat.completion.chunk"}"#

    static let corpus: [String] = [
        llama,
        #"{"choices":[{"finish_reason":"length","index":0,"delta":{}}],"created":1,"timings":{"prompt_n":3,"predicted_ms":1.5e2}}"#,
        #"{"choices":[{"index":0,"delta":{"role":"assistant","content":null}}]}"#,
        #"{"choices":[{"delta":{"content":"a\"b\\c\/d\n\t\u00e9\ud83d\ude00 \u0000"}}]}"#,
        #" { "choices" : [ { "delta" : { "content" : "x" } , "finish_reason" : "stop" } ] } "#,
        #"{"choices":[]}"#, #"{"choices":null}"#, #"{}"#, #"{"choices":[null]}"#,
        #"{"choices":[{"delta":{"content":"a"}},{"delta":{"content":"b"}}]}"#,
        #"{"choices":[{"delta":{"content":1}}]}"#,
        #"{"choices":[{"delta":{"content":"a","content":"b"}}]}"#,
        #"{"choices":[{"delta":{"reasoning_content":"think"}}]}"#,
        #"{"choices":[{"delta":{"tool_calls":[{"index":0}]}}]}"#,
        #"{"choices":[{"delta":{"content":"a"},"logprobs":{"content":[]}}]}"#,
        #"{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}}"#,
        #"{"error":{"message":"boom"}}"#,
        #"{"choices":[{"delta":{"content":"\ud83d"}}]}"#,
        #"{"choices":[{"delta":{"content":"a"}}],"x":[1,-0.5,2E+3,true,false,null,{"y":"z"}]}"#,
        #"{"choices":[{"delta":{"content":"a"}}],"x":01}"#,
        #"{"choices":[{"delta":{"content":"a"}}]} x"#,
        #"["choices"]"#,
    ]

    /// The decoder's reading: the text and finish reason the fast path may answer, or nil when the
    /// chunk does not decode or holds anything the fast path must not answer for.
    static func decoder(_ data: String) -> (String?, String?)?? {
        guard let c = try? JSONDecoder().decode(OpenAIChunk.self, from: Data(data.utf8)) else { return .some(nil) }
        guard c.error == nil, c.usage == nil else { return .some(nil) }
        guard let choice = c.choices?.first else { return (nil, nil) }
        let d = choice.delta
        if d?.reasoning_content != nil || d?.reasoning != nil || d?.tool_calls != nil || choice.logprobs != nil { return .some(nil) }
        return (d?.content, choice.finish_reason)
    }

    static func agrees(_ data: String) -> Bool {
        guard let fast = OpenAIChunkFastPath.textDelta(data) else { return true }  // the decoder decides
        guard case .some(.some(let slow)) = decoder(data) else { return false }
        return fast.text == slow.0 && fast.finishReason == slow.1
    }

    @Test func llamaServersTextChunkTakesTheFastPath() throws {
        let fast = try #require(OpenAIChunkFastPath.textDelta(Self.llama))
        #expect(fast.text == " the" && fast.finishReason == nil)
        let escaped = try #require(OpenAIChunkFastPath.textDelta(Self.corpus[3]))
        #expect(escaped.text == "a\"b\\c/d\n\t\u{e9}\u{1F600} \u{0}")
    }

    @Test func whateverItAnswersTheDecoderAnswersToo() {
        for c in Self.corpus { #expect(Self.agrees(c), "\(c)") }
        // Mutations: a byte dropped, doubled or replaced by a JSON-significant one, anywhere.
        var rng = SystemRandomNumberGenerator()
        let marks = Array(#"{}[]",:"\ 0-.e9nul"#.utf8)
        for base in Self.corpus {
            let bytes = Array(base.utf8)
            for _ in 0..<300 {
                var m = bytes
                let at = Int.random(in: 0..<m.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: m.remove(at: at)
                case 1: m.insert(m[at], at: at)
                default: m[at] = marks.randomElement(using: &rng)!
                }
                guard let s = String(validating: m, as: UTF8.self) else { continue }
                #expect(Self.agrees(s), "\(s)")
            }
        }
    }

    @Test func theStreamDecoderGivesTheSameEventsEitherWay() throws {
        let stream = Self.corpus.prefix(5).map { "data: \($0)\n\n" }.joined() + "data: [DONE]\n\n"
        let (events, error, done) = OpenAIStreamDecoderTests.decode(stream)
        #expect(error == nil && done)
        #expect(events == [.text(" the"), .text("a\"b\\c/d\n\t\u{e9}\u{1F600} \u{0}"), .text("x"),
                           .done(finishReason: "stop", usage: nil)])
    }
}
