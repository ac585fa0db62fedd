import Foundation
import Inference
import PeerLink
import Synchronization
import Testing
import Wire
@testable import HomebaseAgent

/// TEST FAKE link for the pump: records every frame handed to it (`accept` and chunks, in
/// order) and keeps each outcome callback until the test answers it, as a relay that has not
/// confirmed anything yet.
final class HeldLink: Sendable {
    private let state = Mutex<(frames: [String], pending: [@Sendable (LiveOutcome) -> Void])>(([], []))
    var frames: [String] { state.withLock { $0.frames } }
    var unconfirmed: Int { state.withLock { $0.pending.count } }

    func hand(_ frame: String, _ outcome: @escaping @Sendable (LiveOutcome) -> Void) {
        state.withLock { $0.frames.append(frame); $0.pending.append(outcome) }
    }

    /// Answers the oldest unconfirmed frame.
    func confirmOldest(_ outcome: LiveOutcome = .sent) {
        let first = state.withLock { s in s.pending.isEmpty ? nil : s.pending.removeFirst() }
        first?(outcome)
    }

    func opening() -> @Sendable (@escaping @Sendable (LiveOutcome) -> Void) -> Bool {
        { [self] heard in hand("accept", heard); return true }
    }

    var post: StreamPump.Post { { [self] events, heard in hand(joined(events), heard) } }
}

/// The pipelined pump: a scripted engine stream (a stand-in, not a model) and `HeldLink`.
@Suite("the pump posts chunks without waiting for confirmations")
struct PipelinedPumpTests {
    let pump = StreamPumpTests()
    let noDelay = ChunkBatcher.Policy(maxDelay: .zero, maxBytes: 1_019, maxInFlight: 4)

    @Test func eachChunkIsHandedOffBeforeThePreviousOneIsConfirmed() async throws {
        let link = HeldLink()
        let (events, engine) = AsyncThrowingStream.makeStream(of: ChatEvent.self)
        let feeder = Task {
            for t in ["a", "b", "c"] {
                engine.yield(.text(t))
                while !link.frames.contains(t) { try await Task.sleep(for: .milliseconds(2)) }
            }
            engine.yield(.done(finishReason: "stop", usage: nil))
            engine.finish()
        }
        defer { feeder.cancel() }
        let result = try await pump.firstOf(seconds: 30) {
            await StreamPump.run(events, policy: noDelay, opening: link.opening(), post: link.post)
        }
        #expect(result == .done(finishReason: "stop", usage: nil, text: "abc"))
        // accept first, then every chunk, and not one confirmation was given.
        #expect(link.frames == ["accept", "a", "b", "c"])
        #expect(link.unconfirmed == 4)
    }

    @Test func beyondTheWindowTextGathersUntilAConfirmation() async throws {
        let link = HeldLink()
        let policy = ChunkBatcher.Policy(maxDelay: .zero, maxBytes: 1_019, maxInFlight: 2)
        let (events, engine) = AsyncThrowingStream.makeStream(of: ChatEvent.self)
        let run = Task { await StreamPump.run(events, policy: policy, opening: nil, post: link.post) }
        for t in ["a", "b"] {
            engine.yield(.text(t))
            try await eventually { link.frames.contains(t) }
        }
        engine.yield(.text("c"))
        engine.yield(.text("d"))
        engine.yield(.done(finishReason: "stop", usage: nil))
        engine.finish()
        try await Task.sleep(for: .milliseconds(50))  // room for a wrong third post to show
        #expect(link.frames == ["a", "b"])
        link.confirmOldest()
        try await eventually { link.frames.count == 3 }
        #expect(await run.value == .done(finishReason: "stop", usage: nil, text: "abcd"))
        #expect(link.frames == ["a", "b", "cd"])
    }

    @Test func aBounceHeardLaterEndsTheEngineRequest() async throws {
        let link = HeldLink()
        let ended = Mutex(false)
        let (events, engine) = AsyncThrowingStream.makeStream(of: ChatEvent.self)
        engine.onTermination = { _ in ended.withLock { $0 = true } }
        engine.yield(.text("a"))  // and the engine never ends on its own
        let run = Task { await StreamPump.run(events, policy: noDelay, opening: link.opening(), post: link.post) }
        try await eventually { link.frames == ["accept", "a"] }
        link.confirmOldest(.notHere)  // `accept` bounced: the requester left
        #expect(try await pump.firstOf(seconds: 30) { await run.value } == .requesterGone)
        try await eventually { ended.withLock { $0 } }  // the engine request was cancelled
        #expect(link.frames == ["accept", "a"])
    }

    @Test func aClosedWriterAtTheOpeningSendsNothing() async {
        let link = HeldLink()
        let result = await StreamPump.run(pump.engine(["x"]), policy: noDelay, opening: { _ in false }, post: link.post)
        #expect(result == .requesterGone)
        #expect(link.frames.isEmpty)
    }

    /// Polls `condition`; throws only after a generous hang guard (never a speed assertion).
    func eventually(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw StreamPumpTests.TimedOut() }
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}
