import Foundation
import Testing
@testable import Inference

/// The client's own cost per token on the hot path (SSE parsing and delta decoding), measured on
/// llama-server's exact chunk shape. Prints numbers; asserts only that every token came through.
@Suite struct StreamingCostTests {
    static let tokenChunk = #"data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":"tok"}}],"created":1795961288,"id":"chatcmpl-qHrhDSUpv5A4PMWaUlBugJ5uLigMxQhC","model":"tiny","system_fingerprint":"b0-unknown","object":"chat.completion.chunk"}"# + "\n\n"

    @Test func parseAndDecodeCostPerToken() throws {
        let tokens = 20_000
        let chunk = Array(Self.tokenChunk.utf8)
        var parser = SSEParser(reportsStrayLines: true)
        var decoder = OpenAIStreamDecoder()
        var sse: [SSEEvent] = [], out: [ChatEvent] = []
        var texts = 0
        let clock = ContinuousClock(), start = clock.now
        for _ in 0..<tokens {
            parser.parse(chunk, into: &sse)
            for e in sse { try decoder.handle(e, into: &out) }
            texts += out.count
            sse.removeAll(keepingCapacity: true)
            out.removeAll(keepingCapacity: true)
        }
        let elapsed = clock.now - start
        #expect(texts == tokens)
        let us = (Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6) / Double(tokens)
        print("streaming cost: \(String(format: "%.1f", us)) µs per token (parse + decode, debug build); "
              + "5,000 tokens/s uses \(String(format: "%.1f", us * 5000 / 1e4))% of one core")
    }
}
