@testable import Courier
import Basics
import PeerLink
import Sealing
import Signing
import Testing
import Wire

// A live reply envelope at a guest that keeps its replay state in a store: checked in memory
// before its request's stream sees it, committed to the store off the inbound path.
@Suite("a live reply's replay check, its store commit off the inbound path")
struct ReplyReplayTests {
    @Test func aReplayedReplyEnvelopeIsRefusedAndTheOriginalIsCommitted() async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let path = try temporaryDirectory("reply-replay") + "/replay.sqlite3"
        let store = try ReplayStore(path: path)
        defer { store.close() }
        let ia = try identity("guest"), ib = try identity("host")
        let guest = try Device(ia, knows: [ib.record], relay: relay, loop: loop) { $0.replayStore = store }
        let host = try Device(ib, knows: [ia.record], relay: relay, loop: loop)
        try await guest.start()
        try await host.start()
        defer { guest.courier.stop(); host.courier.stop() }
        let (outcome, stream) = await guest.courier.sendRequest(request(5), to: host.record)
        #expect(outcome == .sent)
        _ = try await writer(on: host, for: id16(5))

        // Text in an envelope (a Wire chunk), then the same bytes again (a relay's replay), then an error.
        let text = try #require(try host.courier.seal(.chunk(requestID: id16(5), text: "once"), to: ia.record).first).bytes
        let end = try #require(try host.courier.seal(.error(.init(requestID: id16(5), code: .busy, message: "end")),
                                                     to: ia.record).first).bytes
        #expect(await host.sendRaw([text, text, end], to: ia.record) == [.sent, .sent, .sent])
        let replies = try await collect(stream)
        #expect(replies == [.message(.chunk(requestID: id16(5), text: "once")),
                            .message(.error(.init(requestID: id16(5), code: .busy, message: "end")))])
        #expect(guest.courier.stats.replays == 1)
        #expect(guest.deliveries.isEmpty)
        // The two accepted envelopes reach the store on the commit thread.
        try await eventually("committed") { guest.courier.stats.opened == 2 }
        #expect(guest.courier.stats.replayStoreFailures == 0)
        #expect(throws: SealingError.replayed) { try Self.recheck(text, by: ia, from: ib.record, in: store) }
    }

    @Test func aReplyNoRequestWaitsForGoesToDeliveriesOnlyAfterTheStoreAccepted() async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let path = try temporaryDirectory("reply-replay-stray") + "/replay.sqlite3"
        let store = try ReplayStore(path: path)
        defer { store.close() }
        let ia = try identity("guest"), ib = try identity("host")
        let host = try Device(ib, knows: [ia.record], relay: relay, loop: loop)
        try await host.start()
        defer { host.courier.stop() }
        let stray = try #require(try host.courier.seal(.accept(requestID: id16(9)), to: ia.record).first).bytes

        // One process of the guest hears it; the next (a fresh memory, the same store) must refuse it.
        for round in 0..<2 {
            let guest = try Device(ia, knows: [ib.record], relay: relay, loop: loop) { $0.replayStore = store }
            try await guest.start()
            try await eventually("reachable") { await host.sendRaw([stray], to: ia.record) == [.sent] }
            try await eventually("handled") { guest.courier.stats.opened + guest.courier.stats.replays >= 1 }
            if round == 0 {
                try await eventually("delivered") { guest.messages == [.accept(requestID: id16(9))] }
                #expect(guest.courier.stats.opened == 1)
            } else {
                #expect(guest.courier.stats.replays == 1 && guest.courier.stats.opened == 0)
                #expect(guest.messages.isEmpty)
            }
            guest.courier.stop()
        }
    }

    /// The envelope's id and stamp run through the store once more, as a later process would.
    static func recheck(_ bytes: [UInt8], by me: DeviceIdentity, from sender: DeviceRecord, in store: ReplayStore) throws {
        var state = ReplayState(ReplayBook(template: ReplayGuard(), senders: 8), store: store, book: .envelopes)
        _ = try Envelope.open(bytes, by: me, from: sender, replay: &state, now: UInt64(clamping: wallClockMs()))
    }
}
