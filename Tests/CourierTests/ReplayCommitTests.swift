@testable import Courier
import PeerLink
import Sealing
import Signing
import Testing
import Wire

// A live request's replay check commits on its own thread (ReplayCommit) while the request is
// served; its writer sends nothing until the check accepted it.
@Suite("a live request's replay check, off the inbound path")
struct ReplayCommitTests {
    @Test func aReplayedRequestIsDeliveredButItsWriterNeverAnswersIt() async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let path = try temporaryDirectory("replay-commit") + "/replay.sqlite3"
        let ia = try identity("guest"), ib = try identity("host")
        let guest = try Device(ia, knows: [ib.record], relay: relay, loop: loop)
        try await guest.start()
        defer { guest.courier.stop() }
        let recorded = try #require(try guest.courier.seal(.request(request(7)), to: ib.record).first).bytes

        // Each host stands for one process: its own Courier and its own open of the store.
        func host(_ store: ReplayStore) async throws -> (Device, ReplyWriter) {
            let d = try Device(ib, knows: [ia.record], relay: relay, loop: loop) { $0.replayStore = store }
            try await d.start()
            try await eventually("the host is reachable") { await guest.sendRaw([recorded], to: ib.record) == [.sent] }
            return (d, try await writer(on: d, for: id16(7)))
        }
        let firstStore = try ReplayStore(path: path)
        let (first, w1) = try await host(firstStore)
        #expect(await w1.replayChecked())
        #expect(!w1.replayRefused)
        #expect(first.courier.stats.opened == 1 && first.courier.stats.replays == 0)
        first.courier.stop()
        firstStore.close()

        let (second, w2) = try await host(try ReplayStore(path: path))
        #expect(await w2.replayChecked() == false)
        #expect(w2.replayRefused)
        #expect(!w2.postAccept())
        #expect(!w2.post(text: "never"))
        #expect(await w2.accept() == .failed(.stopped))
        #expect(await w2.fail(error: .init(requestID: id16(7), code: .busy, message: "busy")) == .failed(.stopped))
        #expect(await w2.finish(text: "never", done: done(id16(7))) == .failed(.stopped))
        #expect(second.courier.stats.opened == 0 && second.courier.stats.replays >= 1)
        // A marker sent after all of it: once it is at the guest, nothing the writer refused came before it.
        #expect(await second.courier.send(.cancel(requestID: id16(0x99)), to: ia.record) == .sent)
        try await eventually("the marker arrived") { guest.messages.contains(.cancel(requestID: id16(0x99))) }
        #expect(guest.messages == [.cancel(requestID: id16(0x99))])
        second.courier.stop()
    }

    @Test func aCheckThatAcceptsOrRefusesSettlesEveryWaiter() async throws {
        let accepted = ReplayCommit(settled: .accepted), refused = ReplayCommit(settled: .replayed)
        #expect(await accepted.settled == .accepted)
        #expect(await refused.settled == .replayed)
        #expect(refused.verdict == .replayed)
    }
}
