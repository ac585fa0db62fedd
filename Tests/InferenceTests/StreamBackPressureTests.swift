import Foundation
import Testing
@testable import Inference

/// The OpenAI client's body read on curl's thread, against the scripted engine flooding its
/// answer: a reader that lags holds the transfer back (libcurl pauses it) instead of the
/// answer piling up in memory, loses nothing, and can still cancel it.
@Suite struct StreamBackPressureTests {
    static let highWater = 8

    static func flood(_ count: Int, id: String, idle: Duration = .seconds(30)) throws -> (OpenAIChatClient, OpenAIStreamSink) {
        let client = OpenAIChatClient(.init(
            baseURL: try ScriptedEngine.url("flood"),
            extraHeaders: [HTTPHeader("X-Test-ID", id), HTTPHeader("X-Flood-Count", "\(count)")],
            timeouts: HTTPTimeouts(connect: .seconds(5), firstByte: .seconds(20), idle: idle)))
        return (client, OpenAIStreamSink(prefill: nil, queue: ChatEventQueue(highWater: highWater, lowWater: 2)))
    }

    /// Waits (polling, with a hang guard) until the transfer is paused for the lagging reader.
    static func untilPaused(_ q: ChatEventQueue) async throws {
        for _ in 0..<1_000 where !q.isPaused { try await Task.sleep(for: .milliseconds(10)) }
        try #require(q.isPaused)
    }

    /// Events of one libcurl read at most (its 16 KiB buffer over the peer's ~130-byte chunks).
    static let perRead = 16_384 / 120

    @Test func aLaggingReaderPausesTheTransferAndLosesNothing() async throws {
        // A stall limit far below the pause: a paused transfer is not a silent engine.
        let (client, sink) = try Self.flood(20_000, id: testID(), idle: .milliseconds(100))
        let events = client.stream(hello, into: sink)
        try await Self.untilPaused(sink.queue)
        #expect(sink.queue.backlog <= Self.highWater + Self.perRead)
        try await Task.sleep(for: .milliseconds(400))
        #expect(sink.queue.isPaused)
        let r = await drain(events)
        #expect(r.error == nil)
        #expect(r.events.count == 20_001)
        #expect(text(of: r.events) == String(repeating: "tok ", count: 20_000))
        #expect(r.events.last == .done(finishReason: "stop", usage: nil))
        let c = sink.queue.counts
        #expect(c.pauses >= 1 && c.resumes >= 1)
        #expect(c.maxBacklog <= Self.highWater + Self.perRead)
    }

    @Test func cancellingAPausedStreamClosesTheConnection() async throws {
        let id = testID()
        let (client, sink) = try Self.flood(200_000, id: id)
        let reader = Task { () -> Int in
            var n = 0
            for try await _ in client.stream(hello, into: sink) { n += 1; if n == 1 { try await Self.untilPaused(sink.queue) } }
            return n
        }
        try await Self.untilPaused(sink.queue)
        reader.cancel()
        _ = await reader.result
        let closed = try await ScriptedEngine.waitForRecord(id, event: "closed")
        #expect((closed["sent"] as? Int ?? .max) < 200_000)
    }
}
