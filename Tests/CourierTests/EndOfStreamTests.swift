import Courier
import PeerLink
import Synchronization
import Testing
import Wire

/// Every reply of one stream as it arrives (a test's reader).
final class Arrivals: Sendable {
    private let all = Mutex<[Reply]>([])
    var replies: [Reply] { all.withLock { $0 } }
    var hasDone: Bool { replies.contains { if case .message(.done) = $0 { true } else { false } } }

    init(_ stream: ReplyStream) {
        Task { [self] in for await r in stream { all.withLock { $0.append(r) } } }
    }
}

@Suite("the end of a stream: the last text in the final chunk, done right behind it")
struct EndOfStreamTests {
    @Test func theLastTextRidesTheFinalChunkAfterThePaddingAndDoneWaitsOnlyForBefore() async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (guest, host, stream, w) = try await requestAtTheHost(relay, loop, 4)
        let seen = Arrivals(stream)
        #expect(await w.accept() == .sent)
        #expect(await w.chunk(text: "first ") == .sent)
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let finishing = Task {
            await w.finish(text: "and the end", pads: 2, done: done(id16(4)), before: { for await _ in gate { break } })
        }
        // The final chunk (and the padding before it) left at once; done waits for `before`.
        try await eventually("the final chunk arrived") { seen.replies.contains(.chunk(Array("and the end".utf8), isFinal: true)) }
        try await Task.sleep(for: .milliseconds(50))
        #expect(!seen.hasDone)
        open.yield()
        #expect(await finishing.value == .sent)
        try await eventually("done arrived") { seen.hasDone }
        #expect(seen.replies == [
            .message(.accept(requestID: id16(4))), .chunk(Array("first ".utf8), isFinal: false),
            .chunk([], isFinal: false), .chunk([], isFinal: false),
            .chunk(Array("and the end".utf8), isFinal: true), .message(.done(done(id16(4)))),
        ])
        #expect(await w.chunk(text: "late") == .failed(.stopped))
        guest.courier.stop(); host.courier.stop()
    }

    @Test func aVersion2StreamEndsWithItsLastRecordsInTheFinalChunk() async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (guest, host, stream, w) = try await requestAtTheHost(relay, loop, 5)
        let seen = Arrivals(stream)
        let records = try ReplyEvent.encode([.text("last")])
        #expect(await w.finish(events: records, done: done(id16(5))) == .sent)
        try await eventually("done arrived") { seen.hasDone }
        #expect(seen.replies == [.chunk(records, isFinal: true), .message(.done(done(id16(5))))])
        guest.courier.stop(); host.courier.stop()
    }
}
