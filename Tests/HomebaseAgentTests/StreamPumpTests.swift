import Foundation
import Inference
import PeerLink
import Synchronization
import Testing
import Wire
@testable import HomebaseAgent

/// The text of the events a pump handed out (what a version 1 requester is sent).
func joined(_ events: [ReplyEvent]) -> String {
    events.reduce(into: "") { if case .text(let t) = $1 { $0 += t } }
}

/// The pump between the engine and the link, with a scripted event stream (a stand-in for the
/// engine, not a model) and a recording `send`.
struct StreamPumpTests {
    /// Engine events, all at once, then the end.
    func engine(_ pieces: [String]) -> AsyncThrowingStream<ChatEvent, Error> {
        AsyncThrowingStream { c in
            for p in pieces { c.yield(.text(p)) }
            c.yield(.done(finishReason: "stop", usage: nil))
            c.finish()
        }
    }

    @Test func theEndOfTheEngineFlushesAtOnceNotAtTheEndOfTheBatchWindow() async throws {
        // A one-hour window: if the pump slept it out, the race below would time out.
        let policy = ChunkBatcher.Policy(maxDelay: .seconds(3_600), maxBytes: 1_019)
        let (events, engine) = AsyncThrowingStream.makeStream(of: ChatEvent.self)
        let sent = Mutex<[String]>([])
        let (firstSent, firstSentSignal) = AsyncStream.makeStream(of: Void.self)
        let feeder = Task {
            engine.yield(.text("one "))                   // sent at once (the first text)
            for await _ in firstSent { break }
            engine.yield(.text("two "))                   // now the window is open: it waits
            try? await Task.sleep(for: .milliseconds(20))
            engine.yield(.text("three"))
            engine.yield(.done(finishReason: "stop", usage: nil))
            engine.finish()
        }
        let result = try await firstOf(seconds: 30) {
            await StreamPump.run(events, policy: policy) { t in
                sent.withLock { $0.append(joined(t)) }
                firstSentSignal.yield()
                return .sent
            }
        }
        feeder.cancel()
        #expect(result == .done(finishReason: "stop", usage: nil, text: "one two three"))
        #expect(sent.withLock { $0 } == ["one ", "two three"])
    }

    @Test func nothingLeavesBeforeTheOpeningAndAGoneRequesterSendsNothing() async throws {
        let order = Mutex<[String]>([])
        let result = await StreamPump.run(engine(["a", "b"]), policy: .init(), opening: {
            try? await Task.sleep(for: .milliseconds(50))  // the engine is already done by now
            order.withLock { $0.append("accept") }
            return true
        }) { t in
            order.withLock { $0.append(joined(t)) }
            return .sent
        }
        #expect(result == .done(finishReason: "stop", usage: nil, text: "ab"))
        #expect(order.withLock { $0.first } == "accept")
        #expect(order.withLock { $0.dropFirst().joined() } == "ab")

        let sends = Mutex(0)
        let gone = await StreamPump.run(engine(["x"]), policy: .init(), opening: { false }) { _ in
            sends.withLock { $0 += 1 }
            return .sent
        }
        #expect(gone == .requesterGone)
        #expect(sends.withLock { $0 } == 0)
    }

    struct TimedOut: Error {}

    /// `body`'s result, or `TimedOut` after `seconds` (a generous bound, not a measurement).
    func firstOf<T: Sendable>(seconds: Int, _ body: @escaping @Sendable () async -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { g in
            g.addTask { await body() }
            g.addTask { try await Task.sleep(for: .seconds(seconds)); throw TimedOut() }
            defer { g.cancelAll() }
            return try await g.next()!
        }
    }
}
