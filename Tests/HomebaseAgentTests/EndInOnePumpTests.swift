import Foundation
import Inference
import PeerLink
import Testing
import Wire
@testable import HomebaseAgent

/// The pump's end in one hand-off (`endInOne`, as the agent runs it) and its `ready` gate, with
/// a scripted engine stream (a stand-in, not a model) and `HeldLink` (a test fake link).
@Suite("the engine's end: the last batch waits for nothing")
struct EndInOnePumpTests {
    let pump = StreamPumpTests()

    /// "one " (sent at once: the first text), then "two " and "three" inside a 60 s batch window,
    /// then the engine's end. The pump must return with them at once, not after the window (the
    /// bound, 30 s, only keeps a starved test run from hanging).
    func run(_ shaping: ReplyShaping) async throws -> (PumpResult, [String]) {
        let policy = ChunkBatcher.Policy(maxDelay: .seconds(60), maxBytes: 1_019, maxInFlight: 4,
                                         shaping: .init(level: shaping))
        let link = HeldLink()
        let (events, engine) = AsyncThrowingStream.makeStream(of: ChatEvent.self)
        let feeder = Task {
            engine.yield(.text("one "))
            while !link.frames.contains("one ") { try await Task.sleep(for: .milliseconds(2)) }
            engine.yield(.text("two "))
            engine.yield(.text("three"))
            engine.yield(.done(finishReason: "stop", usage: nil))
            engine.finish()
        }
        defer { feeder.cancel() }
        let started = ContinuousClock.now
        let result = try await pump.firstOf(seconds: 30) {
            await StreamPump.run(events, policy: policy, endInOne: true, opening: link.opening(), post: link.post)
        }
        #expect(ContinuousClock.now - started < .seconds(30))
        return (result, link.frames)
    }

    @Test func theLastBatchIsReturnedForTheFinalChunkAtOnceNotAfterTheWindow() async throws {
        let (result, frames) = try await run(.off)
        #expect(result == .done(finishReason: "stop", usage: nil, text: "one two three", tail: [.text("two three")], pads: 0))
        #expect(frames == ["accept", "one "])  // the last batch was not posted as a chunk of its own
    }

    @Test func aPaddedStreamsPaddingIsCountedIntoTheSameHandOff() async throws {
        let (result, frames) = try await run(.padded)
        // One chunk sent, 14 padding chunks, the final one: 16 chunks, the first length class.
        #expect(result == .done(finishReason: "stop", usage: nil, text: "one two three", tail: [.text("two three")], pads: 14))
        #expect(frames == ["accept", "one "])
    }

    @Test func aCadenceStreamKeepsItsTicks() async throws {
        var b = ChunkBatcher(policy: .init(shaping: .init(level: .cadence)))
        b.append("x")
        b.finish()
        let none = b.takeEnd() == nil
        #expect(none)
    }

    @Test func aRequestThatIsNotReadyEndsTheEngineRequestWithNothingSent() async throws {
        let link = HeldLink()
        let result = try await pump.firstOf(seconds: 30) {
            await StreamPump.run(pump.engine(["x"]), policy: .init(), endInOne: true, ready: { false },
                                 opening: link.opening(), post: link.post)
        }
        #expect(result == .requesterGone)
        #expect(link.frames.isEmpty)
    }
}
