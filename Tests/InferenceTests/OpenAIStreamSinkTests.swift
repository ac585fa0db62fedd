import Foundation
import Synchronization
import Testing
@testable import Inference

/// A fake transfer: plays curl's loop thread for an `OpenAIStreamSink` without a socket. It
/// hands reads over as libcurl would, keeps a paused read to hand over again, and counts the
/// sink's resumes.
final class FakeTransfer: Sendable {
    private final class Tally: Sendable { let n = Atomic<Int>(0) }
    let sink: OpenAIStreamSink
    private let resumed = Tally()
    var resumes: Int { resumed.n.load(ordering: .relaxed) }

    init(_ sink: OpenAIStreamSink) {
        self.sink = sink
        sink.attach(HTTPTransferControl { [resumed] in resumed.n.add(1, ordering: .relaxed) })
    }

    /// One socket read.
    @discardableResult
    func read(_ text: String) -> HTTPBodySinkVerdict {
        Array(text.utf8).withUnsafeBytes { sink.receive($0) }
    }
}

@Suite struct OpenAIStreamSinkTests {
    static func token(_ t: String) -> String { StreamingCostTests.tokenChunk.replacingOccurrences(of: #""tok""#, with: "\"\(t)\"") }
    static let done = "data: [DONE]\n\n"

    /// Waits (yielding, with a hang guard) until the reader is suspended for its next event.
    static func untilWaiting(_ q: ChatEventQueue) async throws {
        for _ in 0..<100_000 where !q.hasWaiter { try await Task.sleep(for: .milliseconds(1)) }
        try #require(q.hasWaiter)
    }

    @Test func eventsAreDecodedOnTheTransfersThreadBeforeAnyTaskRuns() async throws {
        let sink = OpenAIStreamSink(prefill: nil)
        let fake = FakeTransfer(sink)
        for i in 0..<100 { #expect(fake.read(Self.token("t\(i) ")) == .taken) }
        fake.read(Self.done)
        // Decoded synchronously in `receive`: no client task had to run in between.
        #expect(sink.queue.backlog == 101)
        let r = await drain(sink.queue.stream())
        #expect(r.error == nil)
        #expect(text(of: r.events) == (0..<100).map { "t\($0) " }.joined())
        #expect(r.events.last == .done(finishReason: "stop", usage: nil))
        #expect(sink.queue.counts.wakeups == 0)  // all were queued before the reader asked
    }

    @Test func aSuspendedReaderIsWokenOncePerReadNotPerEvent() async throws {
        let sink = OpenAIStreamSink(prefill: nil)
        let fake = FakeTransfer(sink)
        let reader = Task { await drain(sink.queue.stream()) }
        try await Self.untilWaiting(sink.queue)
        fake.read((0..<10).map { Self.token("a\($0)") }.joined())
        while sink.queue.backlog > 0 { await Task.yield() }
        try await Self.untilWaiting(sink.queue)
        fake.read((0..<5).map { Self.token("b\($0)") }.joined() + Self.done)
        let r = await reader.value
        #expect(r.error == nil)
        #expect(r.events.count == 16)
        // 15 tokens and the end: two thread hand-offs in all (the old path: two per token).
        #expect(sink.queue.counts.wakeups == 2)
    }

    static let body = [#"data: {"choices":[{"index":0,"delta":{"content":"Hel"}}]}"#, "",
                       #"data: {"choices":[{"index":0,"delta":{"content":"lo wor"}}]}"#, "",
                       ": keepalive", "",
                       #"data: {"choices":[{"index":0,"delta":{"reasoning_content":"hmm"}}]}"#, "",
                       #"data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{}"}}]}}]}"#, "",
                       #"data: {"choices":[{"index":0,"delta":{"content":"ld ✓"},"finish_reason":"tool_calls"}]}"#, "",
                       #"data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}}"#, "",
                       "data: [DONE]", "", ""].joined(separator: "\r\n")

    static func events(splitting body: [UInt8], at cuts: [Int]) async -> (events: [ChatEvent], error: Error?) {
        let sink = OpenAIStreamSink(prefill: "Hello")
        var start = 0
        for cut in cuts + [body.count] where cut >= start {
            _ = body[start..<cut].withUnsafeBytes { sink.receive($0) }
            start = cut
        }
        return await drain(sink.queue.stream())
    }

    @Test func eventsInOrderAcrossAnySplit() async throws {
        let bytes = Array(Self.body.utf8)
        let whole = await Self.events(splitting: bytes, at: [])
        #expect(whole.error == nil)
        // The prefill "Hello" echoed by the engine is cut, as before.
        #expect(text(of: whole.events) == " world ✓")
        #expect(whole.events.last == .done(finishReason: "tool_calls", usage: Usage(promptTokens: 3, completionTokens: 4)))
        for cut in 0...bytes.count {
            let split = await Self.events(splitting: bytes, at: [cut])
            #expect(split.events == whole.events, "one split at \(cut)")
        }
        var rng = SplitMix(seed: 24)
        for round in 0..<200 {
            let cuts = (0..<Int(rng.next() % 12)).map { _ in Int(rng.next() % UInt64(bytes.count)) }.sorted()
            let split = await Self.events(splitting: bytes, at: cuts)
            #expect(split.events == whole.events, "round \(round), cuts \(cuts)")
        }
    }

    @Test func aLaggingReaderPausesTheTransferAtHighWaterAndResumesItAtLowWater() async throws {
        let sink = OpenAIStreamSink(prefill: nil, queue: ChatEventQueue(highWater: 4, lowWater: 1))
        let fake = FakeTransfer(sink)
        for i in 0..<4 { #expect(fake.read(Self.token("\(i)")) == .taken) }
        // Four behind: the next read is not taken (libcurl holds it and pauses the transfer).
        #expect(fake.read(Self.token("4")) == .pause)
        #expect(sink.queue.backlog == 4)
        #expect(sink.queue.isPaused)
        var it = sink.queue.stream().makeAsyncIterator()
        #expect(try await it.next() == .text("0"))
        #expect(try await it.next() == .text("1"))
        #expect(fake.resumes == 0)
        #expect(try await it.next() == .text("2"))
        #expect(fake.resumes == 1)  // down to one: go on
        #expect(fake.read(Self.token("4")) == .taken)
        fake.read(Self.done)
        var rest: [ChatEvent] = []
        while let e = try await it.next() { rest.append(e) }
        #expect(rest == [.text("3"), .text("4"), .done(finishReason: "stop", usage: nil)])
        #expect(sink.queue.counts.maxBacklog == 4)
    }

    @Test func cancellingTheReaderAbortsTheTransfer() async throws {
        let sink = OpenAIStreamSink(prefill: nil)
        let fake = FakeTransfer(sink)
        let abandoned = Atomic<Bool>(false)
        sink.queue.onAbandon { abandoned.store(true, ordering: .relaxed) }
        fake.read(Self.token("a"))
        let reader = Task { await drain(sink.queue.stream()) }
        try await Self.untilWaiting(sink.queue)
        reader.cancel()
        let r = await reader.value
        #expect(r.error == nil)
        let heard = abandoned.load(ordering: .relaxed)
        #expect(heard)
        #expect(fake.read(Self.token("b")) == .abort)  // the loop closes the connection
    }

    @Test func droppingTheStreamAbortsOnlyBeforeTheEnd() async throws {
        let before = OpenAIStreamSink(prefill: nil)
        FakeTransfer(before).read(Self.token("a"))
        do { _ = before.queue.stream() }
        #expect(before.queue.isAbandoned)
        #expect(FakeTransfer(before).read(Self.token("b")) == .abort)

        let after = OpenAIStreamSink(prefill: nil)
        FakeTransfer(after).read(Self.token("a") + Self.done)
        do { _ = after.queue.stream() }
        #expect(!after.queue.isAbandoned)
        // The rest after `[DONE]` is drained: the connection stays reusable.
        #expect(FakeTransfer(after).read(": trailing\n\n") == .taken)
    }

    @Test func anInBandErrorEndsTheStreamAndAbortsTheTransfer() async throws {
        let sink = OpenAIStreamSink(prefill: nil)
        let verdict = FakeTransfer(sink).read(Self.token("Hel") + #"data: {"error": {"message": "model crashed"}}"# + "\n\n")
        #expect(verdict == .abort)
        let r = await drain(sink.queue.stream())
        #expect(r.events == [.text("Hel")])
        #expect(r.error as? InferenceError == .inBand("model crashed"))
    }
}

/// A seeded generator: the same splits on every run.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
