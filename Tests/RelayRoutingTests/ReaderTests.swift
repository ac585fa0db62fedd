import Courier
import Inference
@testable import RelayRouting
import Testing
import Wire

@Suite("reading replies: the ladder without sockets")
struct ReaderTests {
    let id = Bytes16.repeating(1)

    @Test func acceptThenTextThenDone() {
        var r = ReplyReader()
        #expect(r.read(.message(.accept(requestID: id))) == .init(arm: .firstOutput))
        #expect(r.read(.message(.accept(requestID: id))) == .init())  // a repeat moves nothing
        // An empty chunk is the host's keep-alive (its engine works on the prompt): the
        // first-output rung starts again from now.
        #expect(r.read(.chunk([], isFinal: false)) == .init(arm: .firstOutput))
        #expect(!r.producedText)
        #expect(r.read(.chunk(record(.text("Hi")), isFinal: false)) == .init(events: [.text("Hi")], arm: .stall))
        #expect(r.read(.chunk([], isFinal: false)) == .init(arm: .stall))  // any chunk after output is life
        #expect(r.producedText)
        let done = AppMessage.Done(requestID: id, promptTokens: 1, completionTokens: 2, finishReason: "stop")
        #expect(r.read(.chunk([], isFinal: true)) == .init(arm: .stall))
        #expect(r.read(.message(.done(done))) == .init(arm: .stall, end: .done(done)))
    }

    @Test func aChunkBeforeAcceptImpliesIt() {
        var r = ReplyReader()
        #expect(r.read(.chunk([], isFinal: false)) == .init(arm: .firstOutput))
        #expect(r.read(.chunk(record(.text("x")), isFinal: false)) == .init(events: [.text("x")], arm: .stall))
    }

    @Test func errorsAndRefusedChunksEndTheAttempt() {
        var r = ReplyReader()
        let e = AppMessage.InferenceError(requestID: id, code: .busy, message: "busy")
        #expect(r.read(.message(.error(e))) == .init(end: .hostError(e)))
        var s = ReplyReader()
        #expect(s.read(.streamFailure(.truncated)) == .init(end: .interrupted))
        #expect(s.read(.message(.cancel(requestID: id))) == .init())  // never routed here; ignored
    }

    @Test func aRecordSplitAcrossChunksIsHeldUntilWhole() {
        var r = ReplyReader()
        let bytes = record(.text("é😀!"))
        var out: [[ChatEvent]] = []
        for b in bytes { out.append(r.read(.chunk([b], isFinal: false)).events) }
        #expect(out.dropLast().allSatisfy(\.isEmpty) && out.last == [.text("é😀!")])
    }

    @Test func typedEventsReachTheCallerAndIgnoredOptionsAreReported() {
        var r = ReplyReader()
        let call = AppMessage.ToolCall(id: "c1", name: "look", argumentsJSON: "{}")
        let data = record(.ignoredOptions([0x42]), .reasoning("hm"), .toolCallDelta(.init(index: 0, id: "c1", name: "look")),
                          .toolCallDelta(.init(index: 0, arguments: "{}")), .toolCall(call), .unknown(kind: 0))
        let step = r.read(.chunk(data, isFinal: false))
        #expect(step.ignoredOptions == [0x42])
        #expect(step.events == [.reasoning("hm"), .toolCallDelta(ToolCallDelta(index: 0, id: "c1", name: "look")),
                                .toolCallDelta(ToolCallDelta(index: 0, arguments: "{}")),
                                .toolCall(ToolCall(id: "c1", name: "look", argumentsJSON: "{}"))])
        #expect(r.producedText && step.arm == .stall)
    }

    @Test func aDoneInsideAHalfRecordOrAMalformedRecordInterrupts() {
        var r = ReplyReader()
        _ = r.read(.chunk(Array(record(.text("cut")).dropLast()), isFinal: false))
        let done = AppMessage.Done(requestID: id, promptTokens: 1, completionTokens: 2, finishReason: "stop")
        #expect(r.read(.message(.done(done))).end == .interrupted)
        var s = ReplyReader()
        #expect(s.read(.chunk([1, 0, 0, 0, 1, 0xFF], isFinal: false)).end == .interrupted)
    }

    /// The typed stream's records for `events` (`.unknown` as an empty record of kind 0x7F).
    func record(_ events: ReplyEvent...) -> [UInt8] {
        events.flatMap { e -> [UInt8] in
            if case .unknown = e { return [0x7F, 0, 0, 0, 0] }
            return (try? ReplyEvent.encode([e])) ?? []
        }
    }
}

@Suite("the watchdog")
struct WatchdogTests {
    @Test func eachRungFiresOnceWhenItsDeadlinePasses() async {
        for rung in [Watchdog.Rung.accept, .firstOutput, .stall] {
            let dog = Watchdog(limits: .short(rung), start: .now)
            if rung != .accept { dog.arm(rung) }
            var calls = 0
            await dog.watch { calls += 1 }
            #expect(dog.fired == rung && calls == 1)
            dog.arm(.accept)  // after firing nothing moves
            #expect(dog.fired == rung)
        }
    }

    @Test func anEarlierDeadlineWakesTheWatch() async throws {
        // Accept allows an hour; moved to a 100 ms first-output rung, the watch must wake for it
        // (else it sleeps out the hour and the hang guard fails the test).
        var limits = WatchdogLimits.short(.firstOutput)
        limits.accept = .seconds(3600)
        let dog = Watchdog(limits: limits, start: .now)
        let task = Task { await dog.watch {} }
        try await Task.sleep(for: .milliseconds(20))  // the watch is asleep on the hour
        dog.arm(.firstOutput)
        try await eventually("the first-output rung fired") { dog.fired != nil }
        #expect(dog.fired == .firstOutput)
        task.cancel()
    }

    @Test func aCancelledWatchNeverFires() async {
        let dog = Watchdog(limits: .relaxed, start: .now)
        let task = Task { await dog.watch {} }
        task.cancel()
        await task.value
        #expect(dog.fired == nil)
    }

    @Test func rearmingMovesTheDeadline() async {
        // The accept rung is 100 ms; moved to stall (20 s) before it passes, it never fires,
        // and the watch ends only through cancellation.
        let dog = Watchdog(limits: .short(.accept), start: .now + .seconds(3600))
        dog.arm(.stall)
        let task = Task { await dog.watch {} }
        try? await Task.sleep(for: .milliseconds(150))
        task.cancel()
        await task.value
        #expect(dog.fired == nil)
    }
}
