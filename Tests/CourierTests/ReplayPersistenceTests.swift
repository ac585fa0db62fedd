@testable import Courier
import PeerLink
import Sealing
import Signing
import Testing
import Wire

// Hole 13 of issue 15: replay state outlives the process that accepted a message.
@Suite("replay state across restarts")
struct ReplayPersistenceTests {
    @Test func aRestartedReceiverRefusesAnEnvelopeItAcceptedBefore() async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let path = try temporaryDirectory("replay") + "/replay.sqlite3"
        let ia = try identity("guest"), ib = try identity("host")
        let a = try Device(ia, knows: [ib.record], relay: relay, loop: loop)
        try await a.start()
        defer { a.courier.stop() }
        let m = AppMessage.cancel(requestID: id16(6))
        let recorded = try #require(try a.courier.seal(m, to: ib.record).first).bytes

        // Each receiver stands for one process: its own Courier and its own open of the file.
        func receiver(_ store: ReplayStore?) async throws -> Device {
            let d = try Device(ib, knows: [ia.record], relay: relay, loop: loop) { $0.replayStore = store }
            try await d.start()
            return d
        }
        func deliver(to d: Device) async throws -> CourierStats {
            try await eventually("the receiver is reachable") {
                await a.sendRaw([recorded], to: ib.record) == [.sent]
            }
            try await eventually("handled") { d.courier.stats.opened + d.courier.stats.replays >= 1 }
            d.courier.stop()
            return d.courier.stats
        }
        let first = try ReplayStore(path: path)
        let accepted = try await deliver(to: try await receiver(first))
        first.close()
        #expect(accepted.opened == 1)

        let second = try await deliver(to: try await receiver(try ReplayStore(path: path)))
        #expect(second.opened == 0 && second.replays == 1)

        // Without the store (as before): the fresh process believes the recorded envelope.
        let forgetful = try await deliver(to: try await receiver(nil))
        #expect(forgetful.opened == 1)
    }
}
