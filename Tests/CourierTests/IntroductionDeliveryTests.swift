import Basics
@testable import Courier
import PeerLink
import Sealing
import Signing
import Testing
import Wire

@Suite("first contact: introductions through a relay")
struct IntroductionDeliveryTests {
    private func join(_ name: String, record: DeviceRecord) -> AppMessage {
        .join(.init(secretProof: .repeating(7), deviceRecord: record.encoded, accountName: name))
    }

    @Test func aStrangerIsDeliveredAsIntroducedThenEnvelopesStillNeedTheDirectory() async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let ig = try identity("guest"), ih = try identity("host")
        let host = try Device(ih, knows: [], relay: relay, loop: loop)  // knows nobody
        let guest = try Device(ig, knows: [ih.record], relay: relay, loop: loop)
        try await host.start(); try await guest.start()
        let message = join("friend", record: ig.record)
        let outcome = try await guest.courier.introduce(message, toSigningKey: ih.signingKey.publicKey,
                                                        hpkeKey: ih.hpkeKey.publicKey, deliveryClass: .live)
        #expect(outcome == .sent)
        try await eventually("the host got the introduction") { host.deliveries.count == 1 }
        let d = try #require(host.deliveries.first)
        #expect(d.introduced && d.message == message && d.sender == ig.record && d.streamSecret == nil)
        #expect(host.courier.stats.introductions == 1)
        // An ordinary envelope from the same stranger is still dropped unopened.
        #expect(await guest.courier.send(.revoke(.init(grantID: id16(1), reason: "x")), to: ih.record) == .sent)
        try await eventually("dropped") { host.courier.stats.droppedUnknownSender == 1 }
        #expect(host.deliveries.count == 1)
        // Envelopes between devices that know each other are never marked introduced.
        #expect(try await host.courier.introduce(message, toSigningKey: ig.signingKey.publicKey,
                                             hpkeKey: ig.hpkeKey.publicKey, deliveryClass: .live) == .sent)
        #expect(await host.courier.send(.revoke(.init(grantID: id16(2), reason: "y")), to: ig.record) == .sent)
        try await eventually("guest got both") { guest.deliveries.count == 2 }
        #expect(guest.deliveries.map(\.introduced).sorted { !$0 && $1 } == [false, true])
        host.courier.stop(); guest.courier.stop()
    }

    @Test func aMailedIntroductionWaitsAndIsAckedByTheConsumer() async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let ig = try identity("guest"), ih = try identity("host")
        let guest = try Device(ig, knows: [], relay: relay, loop: loop)
        try await guest.start()
        let message = join("friend", record: ig.record)
        #expect(try await guest.courier.introduce(message, toSigningKey: ih.signingKey.publicKey,
                                                  hpkeKey: ih.hpkeKey.publicKey, deliveryClass: .mail) == .stored)
        let host = try Device(ih, knows: [], relay: relay, loop: loop)
        try await host.start()
        try await eventually("delivered from the mailbox") { host.deliveries.count == 1 }
        let d = try #require(host.deliveries.first)
        #expect(d.introduced && d.deliveryClass == .mail && d.sender == ig.record)
        #expect(try relay.ackedMail() == 0)
        d.ack()
        try await eventually("acked") { (try? relay.ackedMail()) == 1 }
        host.courier.stop(); guest.courier.stop()
    }

    @Test func aForgedOrWrongKeyIntroductionIsCountedNotDelivered() async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let ig = try identity("guest"), ih = try identity("host"), other = try identity("other")
        let host = try Device(ih, knows: [], relay: relay, loop: loop)
        let guest = try Device(ig, knows: [], relay: relay, loop: loop)
        try await host.start(); try await guest.start()
        // Sealed to another device's HPKE key: the host cannot open it.
        #expect(try await guest.courier.introduce(join("x", record: ig.record), toSigningKey: ih.signingKey.publicKey,
                                                  hpkeKey: other.hpkeKey.publicKey, deliveryClass: .live) == .sent)
        // A payload that carries another device's introduction: the record is not the relay's sender.
        let foreign = try Introduction.seal([0x31], from: other, toSigningKey: ih.signingKey.publicKey,
                                            hpkeKey: ih.hpkeKey.publicKey, now: UInt64(wallClockMs()))
        #expect(await guest.courier.link.sendLive(to: ih.signingKey.publicKey, payload: foreign) == .sent)
        try await eventually("both refused") { host.courier.stats.openFailed == 2 }
        #expect(host.deliveries.isEmpty && host.courier.stats.introductions == 0)
        host.courier.stop(); guest.courier.stop()
    }

    @Test func aReplayedIntroductionIsRefused() async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let ig = try identity("guest"), ih = try identity("host")
        let host = try Device(ih, knows: [], relay: relay, loop: loop)
        let guest = try Device(ig, knows: [], relay: relay, loop: loop)
        try await host.start(); try await guest.start()
        let body = try join("x", record: ig.record).encode()
        let payload = try Introduction.seal(body, from: ig, toSigningKey: ih.signingKey.publicKey,
                                            hpkeKey: ih.hpkeKey.publicKey, now: UInt64(wallClockMs()))
        #expect(await guest.courier.link.sendLive(to: ih.signingKey.publicKey, payload: payload) == .sent)
        #expect(await guest.courier.link.sendLive(to: ih.signingKey.publicKey, payload: payload) == .sent)
        // Both frames are handled in order; the consumer task appends the delivery on its own time.
        try await eventually("one delivered, one refused") { host.courier.stats.replays == 1 && host.deliveries.count == 1 }
        #expect(host.courier.stats.introductions == 1 && host.deliveries.count == 1)
        host.courier.stop(); guest.courier.stop()
    }
}
