import Courier
import PeerLink
import Testing
import Wire

/// The relay's `peer-gone` ends a request waiting on the host that left, at once (through a
/// real in-process relay: the host's link is stopped mid-exchange).
@Suite struct HostGoneTests {
    @Test func aRequestEndsWhenItsHostLeavesTheRelay() async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (guest, host, stream, w) = try await requestAtTheHost(relay, loop)
        #expect(await w.accept() == .sent)
        #expect(await w.chunk(text: "half an ans") == .sent)
        host.courier.stop()  // the host's connection closes mid-answer
        let replies = try await collect(stream)  // ends without done: no watchdog in play here
        #expect(replies.last == .hostGone(.closed), "\(replies)")
        #expect(text(of: replies) == "half an ans")
        #expect(guest.courier.stats.requestsEndedByPeerGone == 1)
        guest.courier.stop()
    }

    /// Another host's departure leaves the request alone.
    @Test func anotherDevicesDepartureDoesNotEndTheRequest() async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (guest, host) = try await pair(relay, loop)
        let other = try Device(try identity("other"), knows: [guest.record], relay: relay, loop: loop)
        try await other.start()
        #expect(await other.courier.send(.rosterAsk(version: 1), to: guest.record) == .sent)
        let (_, stream) = await guest.courier.sendRequest(request(2), to: host.record)
        let w = try await writer(on: host, for: id16(2))
        other.courier.stop()
        try await eventually("the guest heard other's peer-gone") { guest.courier.stats.peerGone == 1 }
        #expect(await w.accept() == .sent)
        #expect(await w.finish(done: done(id16(2))) == .sent)
        let replies = try await collect(stream)
        #expect(replies.last == .message(.done(done(id16(2)))), "\(replies)")
        guest.courier.stop(); host.courier.stop()
    }
}
