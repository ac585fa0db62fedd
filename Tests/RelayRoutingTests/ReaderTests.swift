import Courier
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
        #expect(r.read(.chunk(Array("Hi".utf8), isFinal: false)) == .init(text: "Hi", arm: .stall))
        #expect(r.read(.chunk([], isFinal: false)) == .init(arm: .stall))  // any chunk after output is life
        #expect(r.producedText)
        let done = AppMessage.Done(requestID: id, promptTokens: 1, completionTokens: 2, finishReason: "stop")
        #expect(r.read(.chunk([], isFinal: true)) == .init(arm: .stall))
        #expect(r.read(.message(.done(done))) == .init(arm: .stall, end: .done(done)))
    }

    @Test func aChunkBeforeAcceptImpliesIt() {
        var r = ReplyReader()
        #expect(r.read(.chunk([], isFinal: false)) == .init(arm: .firstOutput))
        #expect(r.read(.chunk(Array("x".utf8), isFinal: false)) == .init(text: "x", arm: .stall))
    }

    @Test func errorsAndRefusedChunksEndTheAttempt() {
        var r = ReplyReader()
        let e = AppMessage.InferenceError(requestID: id, code: .busy, message: "busy")
        #expect(r.read(.message(.error(e))) == .init(end: .hostError(e)))
        var s = ReplyReader()
        #expect(s.read(.streamFailure(.truncated)) == .init(end: .interrupted))
        #expect(s.read(.message(.cancel(requestID: id))) == .init())  // never routed here; ignored
    }

    @Test func aCharacterSplitAcrossChunksIsHeldUntilWhole() {
        var r = ReplyReader()
        let bytes = Array("é😀!".utf8)  // 2 + 4 + 1 bytes
        var out: [String] = []
        for b in bytes { out.append(r.read(.chunk([b], isFinal: false)).text) }
        #expect(out == ["", "é", "", "", "", "😀", "!"])
        var carry = UTF8Carry()
        #expect(carry.append([0xE2, 0x82]) == "" && carry.flush() == "\u{FFFD}")  // a cut tail at the end
        #expect(carry.append([0x80, 0x41]) == "\u{FFFD}A")  // a stray continuation byte does not wait
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
