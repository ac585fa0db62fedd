import Courier
import Dispatch
import PeerLink
import Synchronization
import Testing
import Wire

/// Outcomes heard by `then` callbacks, in the order they came.
final class Heard: Sendable {
    private let all = Mutex<[LiveOutcome]>([])
    func add(_ o: LiveOutcome) { all.withLock { $0.append(o) } }
    var outcomes: [LiveOutcome] { all.withLock { $0 } }
}

/// The relay's loop held still (the real relay, frozen by parking its thread): it neither
/// forwards nor answers pings until `thaw`, so no live frame can be confirmed meanwhile.
final class Freeze: Sendable {
    private let gate = DispatchSemaphore(value: 0)
    private let parked = DispatchSemaphore(value: 0)
    private let thawed = Mutex(false)

    init(_ relay: LiveRelay) {
        let gate = gate, parked = parked
        relay.loop.execute { parked.signal(); gate.wait() }
        parked.wait()
    }

    func thaw() {
        let first = thawed.withLock { t in defer { t = true }; return !t }
        if first { gate.signal() }
    }
}

@Suite("pipelined replies: frames leave before the previous one is confirmed")
struct PipelinedWriterTests {
    @Test func acceptAndChunksAreHandedOffWhileTheRelayCannotConfirmAnyOfThem() async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (guest, host, stream, w) = try await requestAtTheHost(relay, loop)
        let heard = Heard()
        let pieces = (0..<20).map { "piece\($0) " }
        let freeze = Freeze(relay)
        defer { freeze.thaw() }
        // Every call returns while nothing can be confirmed: none waits for the one before.
        #expect(w.postAccept { heard.add($0) })
        for p in pieces { #expect(w.post(text: p) { heard.add($0) }) }
        #expect(heard.outcomes.isEmpty)  // the relay is frozen: no confirmation exists yet
        freeze.thaw()
        #expect(await w.finish(done: done(id16(1))) == .sent)
        let replies = try await collect(stream)
        #expect(replies.first == .message(.accept(requestID: id16(1))))
        #expect(text(of: replies) == pieces.joined())
        #expect(replies.last == .message(.done(done(id16(1)))))
        #expect(!replies.contains { if case .streamFailure = $0 { true } else { false } })
        try await eventually("every outcome heard") { heard.outcomes.count == 21 }
        #expect(heard.outcomes.allSatisfy { $0 == .sent })
        guest.courier.stop(); host.courier.stop()
    }

    @Test func aClosedStreamPostsNothingAndSaysSo() async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (guest, host, stream, w) = try await requestAtTheHost(relay, loop, 2)
        let heard = Heard()
        #expect(w.post(text: "only") { heard.add($0) })
        #expect(await w.finish(done: done(id16(2))) == .sent)
        #expect(!w.post(text: "late") { heard.add($0) })
        #expect(!w.postAccept { heard.add($0) })
        try await eventually("three outcomes") { heard.outcomes.count == 3 }
        #expect(heard.outcomes.filter { $0 == .failed(.stopped) }.count == 2)
        let replies = try await collect(stream)
        #expect(text(of: replies) == "only")
        guest.courier.stop(); host.courier.stop()
    }

    @Test func aRequesterThatIsGoneIsHeardOnAPostedFrame() async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let (guest, host, _, w) = try await requestAtTheHost(relay, loop, 3)
        guest.courier.stop()
        var bounced = false  // once the relay has dropped the guest's connection
        for _ in 0..<1_500 where !bounced {
            bounced = await host.courier.send(.cancel(requestID: id16(9)), to: guest.record) == .notHere
            if !bounced { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(bounced)
        let heard = Heard()
        #expect(w.postAccept { heard.add($0) })
        #expect(w.post(text: "anyone?") { heard.add($0) })
        try await eventually("both bounced") { heard.outcomes.count == 2 }
        #expect(heard.outcomes == [.notHere, .notHere])
        host.courier.stop()
    }
}
