import Courier
import Foundation
import Sealing
import Testing
import Wire
@testable import HomebaseAgent

/// Grantees cannot crowd out the owner (issue 15, hole 6c), with a real relay in process and a
/// scripted engine that streams for a minute: one engine slot and the queue head are kept for the
/// account's own devices, and one grantee holds at most its cap of requests at once.
@Suite(.serialized) struct GrantSlotsTests {
    /// A host whose engine never finishes in time, the fixture's guest as the owner's laptop,
    /// and `friends` grantees (each with a grant for the scripted model, no rate limit).
    func withHost(friends: Int, configure: @escaping (inout HomebaseAgent.Configuration) -> Void = { _ in },
                  _ body: (HostFixture, [GuestSide]) async throws -> Void) async throws {
        let url = try ScriptedEngine.url("endless")
        let f = try await HostFixture(runtime: (url, ["scripted"]), sibling: true, configure: {
            $0.queueWait = .seconds(120)  // a queued request waits for a slot, not for the clock
            configure(&$0)
        })
        try await withGrantees(friends, of: f, model: "scripted") { sides in try await body(f, sides) }
    }

    /// What a request got first: text (it holds an engine slot) or an error code.
    enum First: Equatable, Sendable { case text, error(AppMessage.ErrorCode), ended }

    /// A request in flight: its stream is kept (dropping it would end it here, not at the host),
    /// and what it got first is kept for the test to read (nil while it waits in the queue).
    final class Flight: @unchecked Sendable {
        let request = HomebaseAgentTests.request("scripted")
        let side: GuestSide
        private let lock = NSLock()
        private var stream: ReplyStream?
        private var got: First?
        init(_ side: GuestSide) { self.side = side }

        var first: First? { lock.withLock { got } }

        func run(to host: DeviceRecord) async {
            let (_, s) = await side.courier.sendRequest(request, to: host)
            lock.withLock { stream = s }
            var result = First.ended
            loop: for await reply in s {
                switch reply {
                case .chunk: result = .text; break loop
                case .message(.error(let e)): result = .error(e.code); break loop
                default: continue
                }
            }
            lock.withLock { got = result }
        }

        func end(_ host: DeviceRecord) async {
            _ = await side.courier.send(.cancel(requestID: request.requestID), to: host)
            lock.withLock { stream }?.cancel()
        }
    }

    /// Starts a request and returns once it holds a slot, was refused, or waits in the queue.
    @discardableResult
    func launch(_ side: GuestSide, _ f: HostFixture) async throws -> Flight {
        let flight = Flight(side)
        let before = f.agent.gate.counts.waiting
        Task { await flight.run(to: f.host) }
        try await eventually("the request to be answered or queued") {
            flight.first != nil || f.agent.gate.counts.waiting > before
        }
        return flight
    }

    /// Waits for what a queued request gets.
    func settled(_ flight: Flight) async throws -> First? {
        try await eventually("the request to be answered") { flight.first != nil }
        return flight.first
    }

    @Test func granteesFillingTheEngineLeaveASlotForTheOwner() async throws {
        try await withHost(friends: 2, configure: { $0.maxConcurrent = 2; $0.queueLength = 1 }) { f, friends in
            var flights: [Flight] = []
            for side in friends + friends { flights.append(try await launch(side, f)) }  // two each: within a cap of two
            #expect(flights.filter { $0.first == .text }.count == 1, "\(flights.map(\.first))")  // one slot stays the owner's
            let mine = try await launch(f.guest, f)
            #expect(mine.first == .text)
            for flight in flights + [mine] { await flight.end(f.host) }
        }
    }

    @Test func theOwnersQueuedRequestGoesAheadOfTheGrantees() async throws {
        try await withHost(friends: 2, configure: { $0.maxConcurrent = 2; $0.queueLength = 2 }) { f, friends in
            let holder = try await launch(friends[0], f)
            let waiter = try await launch(friends[1], f)
            #expect(holder.first == .text && waiter.first == nil)
            let mine = try await launch(f.guest, f)
            #expect(mine.first == .text)  // the slot kept for the owner
            let queued = try await launch(f.guest, f)
            #expect(queued.first == nil && f.agent.gate.counts.waiting == 2)
            // The grantee's slot frees: the owner's waiter gets it, not the grantee queued before it.
            await holder.end(f.host)
            #expect(try await settled(queued) == .text)
            #expect(waiter.first == nil && f.agent.gate.counts.waiting == 1)
            for flight in [holder, waiter, mine, queued] { await flight.end(f.host) }
        }
    }

    @Test func oneGranteeHoldsAtMostItsCap() async throws {
        try await withHost(friends: 1) { f, friends in
            var flights: [Flight] = []
            for _ in 0..<3 { flights.append(try await launch(friends[0], f)) }
            #expect(flights.map(\.first) == [.text, .text, .error(.busy)])  // default cap: 2
            for flight in flights { await flight.end(f.host) }
        }
    }
}
