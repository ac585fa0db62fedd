import Courier
import PeerLink
import Sealing
import Signing
import Synchronization
import Testing
import Wire

/// The host's side for these tests: waits for the request with this id and makes its writer.
func writer(on host: Device, for requestID: Bytes16) async throws -> ReplyWriter {
    try await eventually("request arrived") {
        host.deliveries.contains { if case .request(let r) = $0.message { r.requestID == requestID } else { false } }
    }
    let d = host.deliveries.first { if case .request(let r) = $0.message { r.requestID == requestID } else { false } }!
    return try ReplyWriter(courier: host.courier, delivery: d)
}

/// A paired guest and host on `relay`, the guest's request `id` sent and arrived: the guest's
/// reply stream and the host's writer for it.
func requestAtTheHost(_ relay: LiveRelay, _ loop: TestLoop, _ id: UInt8 = 1) async throws
    -> (guest: Device, host: Device, stream: ReplyStream, writer: ReplyWriter) {
    let (guest, host) = try await pair(relay, loop)
    let (outcome, stream) = await guest.courier.sendRequest(request(id), to: host.record)
    #expect(outcome == .sent)
    return (guest, host, stream, try await writer(on: host, for: id16(id)))
}

func firstRequest(on host: Device) async throws -> Delivery? {
    try await eventually("a request arrived") { !host.deliveries.isEmpty }
    return host.deliveries.first
}

func done(_ id: Bytes16) -> AppMessage.Done { .init(requestID: id, promptTokens: 3, completionTokens: 100, finishReason: "stop") }

@Suite("requests with streamed replies")
struct RequestTests {
    @Test func aStreamedReplyOf100ChunksArrivesExactly() async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (guest, host, stream, w) = try await requestAtTheHost(relay, loop)
        #expect(w.streamID == stream.streamID)
        let pieces = (0..<100).map { "tök\($0)·" }
        #expect(await w.accept() == .sent)
        for p in pieces { #expect(await w.chunk(text: p) == .sent) }
        #expect(await w.finish(done: done(id16(1))) == .sent)
        let replies = try await collect(stream)
        #expect(replies.first == .message(.accept(requestID: id16(1))))
        #expect(replies.last == .message(.done(done(id16(1)))))
        #expect(text(of: replies) == pieces.joined())
        #expect(replies.filter { if case .chunk = $0 { true } else { false } }.count == 101)  // + the empty final
        #expect(replies.dropLast().last == .chunk([], isFinal: true))
        #expect(!replies.contains { if case .streamFailure = $0 { true } else { false } })
        #expect(guest.deliveries.isEmpty)  // done went to the stream only
        #expect(await w.chunk(text: "late") == .failed(.stopped))
        let d = try #require(host.deliveries.first)
        #expect(throws: CourierError.alreadyAnswered) { try host.courier.replyWriter(for: d) }
        #expect(throws: CourierError.notARequest) {
            try host.courier.replyWriter(for: Delivery(message: .cancel(requestID: id16(1)), sender: guest.record,
                                                       messageID: .random(), receivedAtMs: 0))
        }
        guest.courier.stop(); host.courier.stop()
    }

    @Test func aSplitRequestIsAnsweredOnTheStreamOfItsLastPart() async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (guest, host) = try await pair(relay, loop)
        let big = request(3, text: String(repeating: "a long inlined conversation ", count: 4000))  // ~110 KB
        let (outcome, stream) = await guest.courier.sendRequest(big, to: host.record)
        #expect(outcome == .sent)
        let w = try host.courier.replyWriter(for: try #require(await firstRequest(on: host)))
        #expect(w.streamID == stream.streamID && host.courier.stats.partsReassembled == 1)
        _ = await w.chunk(text: "ok")
        _ = await w.finish(done: done(id16(3)))
        let replies = try await collect(stream)
        #expect(text(of: replies) == "ok" && replies.last == .message(.done(done(id16(3)))))
        guest.courier.stop(); host.courier.stop()
    }

    @Test func twoConcurrentRequestsAreNotMixedUp() async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (guest, host) = try await pair(relay, loop)
        async let first = guest.courier.sendRequest(request(1, text: "one"), to: host.record)
        async let second = guest.courier.sendRequest(request(2, text: "two"), to: host.record)
        let ((o1, s1), (o2, s2)) = await (first, second)
        #expect(o1 == .sent && o2 == .sent && s1.streamID != s2.streamID)
        let w1 = try await writer(on: host, for: id16(1)), w2 = try await writer(on: host, for: id16(2))
        for i in 0..<20 {  // interleaved on the wire
            _ = await w2.chunk(text: "b\(i) ")
            _ = await w1.chunk(text: "a\(i) ")
        }
        _ = await w2.fail(error: .init(requestID: id16(2), code: .busy, message: "busy"))
        _ = await w1.finish(done: done(id16(1)))
        let r1 = try await collect(s1), r2 = try await collect(s2)
        #expect(text(of: r1) == (0..<20).map { "a\($0) " }.joined())
        #expect(text(of: r2) == (0..<20).map { "b\($0) " }.joined())
        #expect(r1.last == .message(.done(done(id16(1)))))
        #expect(r2.last == .message(.error(.init(requestID: id16(2), code: .busy, message: "busy"))))
        #expect(r2.dropLast().last == .chunk([], isFinal: true))  // fail() closed the stream first
        guest.courier.stop(); host.courier.stop()
    }

    @Test func aTamperedChunkIsAStreamFailure() async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (guest, host) = try await pair(relay, loop)
        let (_, stream) = await guest.courier.sendRequest(request(1), to: host.record)
        // The host's stream as ReplyWriter seals it, written raw so the third chunk's tag can
        // be flipped on the way (what a tampering relay would deliver).
        let d = try #require(try await firstRequest(on: host))
        let sealer = try StreamSealer(secret: try #require(d.streamSecret))
        var frames = try (0..<5).map { i in
            SealedPayload.streamChunkBytes(streamID: d.messageID, chunk: try sealer.seal(Array("c\(i)".utf8), final: false))
        }
        frames.append(SealedPayload.streamChunkBytes(streamID: d.messageID, chunk: try sealer.seal([], final: true)))
        frames[2][frames[2].count - 1] ^= 0x80  // the tag of the third chunk
        _ = await host.sendRaw(frames, to: guest.record)
        _ = await host.courier.send(.done(done(id16(1))), to: guest.record)
        let replies = try await collect(stream)
        let failures = replies.compactMap { if case .streamFailure(let e) = $0 { e } else { nil } }
        // The tampered chunk, the gap it leaves (two chunks and the final), `done` without a final.
        #expect(failures == [.openFailed, .dropped, .dropped, .dropped, .truncated])
        #expect(text(of: replies) == "c0c1")
        #expect(guest.courier.stats.chunkFailures == 4)  // the tampered one, then 3 beyond the gap
        guest.courier.stop(); host.courier.stop()
    }

    @Test func cancelStopsDelivery() async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (guest, host, stream, w) = try await requestAtTheHost(relay, loop)
        _ = await w.accept()
        _ = await w.chunk(text: "first")
        var it = stream.makeAsyncIterator()
        #expect(await it.next() == .message(.accept(requestID: id16(1))))
        #expect(await it.next() == .chunk(Array("first".utf8), isFinal: false))
        stream.cancel()
        for i in 0..<3 { _ = await w.chunk(text: "more\(i)") }
        _ = await w.finish(done: done(id16(1)))
        try await eventually("late replies dropped") {
            guest.courier.stats.unexpectedChunks == 4 && guest.courier.stats.lateReplies == 1
        }
        #expect(await it.next() == nil)
        #expect(guest.deliveries.isEmpty)  // the late `done` is not a delivery either
        guest.courier.stop(); host.courier.stop()
    }

    @Test func stopEndsEveryReplyStreamAndTheWriterSeesIt() async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (guest, host, stream, w) = try await requestAtTheHost(relay, loop)
        _ = await w.accept()
        var it = stream.makeAsyncIterator()
        #expect(await it.next() == .message(.accept(requestID: id16(1))))
        guest.courier.stop()
        #expect(await it.next() == nil)
        host.courier.stop()
        #expect(await w.chunk(text: "x") == .failed(.stopped))
    }

    @Test func aReplyFromAnotherDeviceDoesNotReachTheStream() async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let ig = try identity("guest"), ih = try identity("host"), im = try identity("meddler")
        let guest = try Device(ig, knows: [ih.record, im.record], relay: relay, loop: loop)
        let host = try Device(ih, knows: [ig.record], relay: relay, loop: loop)
        let meddler = try Device(im, knows: [ig.record], relay: relay, loop: loop)
        try await guest.start(); try await host.start(); try await meddler.start()
        let (_, stream) = await guest.courier.sendRequest(request(1), to: host.record)
        _ = try await writer(on: host, for: id16(1))
        // The meddler knows the request id but is not the host we asked: a plain delivery.
        #expect(await meddler.courier.send(.done(done(id16(1))), to: guest.record) == .sent)
        try await eventually("delivered aside") { guest.deliveries.count == 1 }
        stream.cancel()
        #expect(try await collect(stream).isEmpty)
        guest.courier.stop(); host.courier.stop(); meddler.courier.stop()
    }
}
