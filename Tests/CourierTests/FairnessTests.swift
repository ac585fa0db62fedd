import Basics
@testable import Courier
import PeerLink
import Sealing
import Signing
import Testing
import Wire

// One sender must not silence the others (issue 15, holes 2 and 3): neither by raising a
// shared replay watermark with future timestamps nor by filling a shared part buffer.
@Suite("one sender cannot silence the others")
struct FairnessTests {
    /// Three devices: `flooder` and `honest` both known to `host`.
    struct Scene {
        let flooder: Device, honest: Device, host: Device
        func stop() { flooder.courier.stop(); honest.courier.stop(); host.courier.stop() }
    }

    func scene(_ relay: LiveRelay, _ loop: TestLoop, _ tweak: (inout Courier.Configuration) -> Void = { _ in }) async throws -> Scene {
        let f = try identity("flooder"), h = try identity("honest"), host = try identity("host")
        let s = Scene(flooder: try Device(f, knows: [host.record], relay: relay, loop: loop),
                      honest: try Device(h, knows: [host.record], relay: relay, loop: loop),
                      host: try Device(host, knows: [f.record, h.record], relay: relay, loop: loop, tweak))
        try await s.flooder.start(); try await s.honest.start(); try await s.host.start()
        return s
    }

    @Test func futureStampedFloodFromOneSenderLeavesAnotherAccepted() async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        // A small guard stands for the default 65,536 ids: the flood is one id more than it holds.
        let capacity = 8
        let s = try await scene(relay, loop) { $0.replayGuard = ReplayGuard(maxFutureSkew: 300_000, capacity: capacity) }
        defer { s.stop() }
        let ahead = UInt64(wallClockMs()) + 290_000  // 4:50 ahead: inside the tolerated skew
        let body = try AppMessage.cancel(requestID: id16(1)).encode()
        let flood = try (0...capacity).map { _ in
            try Envelope.seal(body: body, from: s.flooder.identity, to: s.host.record, now: ahead).bytes
        }
        _ = await s.flooder.sendRaw(flood, to: s.host.record)
        try await eventually("the flood was handled") {
            let st = s.host.courier.stats
            return st.opened + st.replays == capacity + 1
        }
        let m = AppMessage.cancel(requestID: id16(2))
        #expect(await s.honest.courier.send(m, to: s.host.record) == .sent)
        try await eventually("the honest device's message was handled") {
            let st = s.host.courier.stats
            return st.opened + st.replays == capacity + 2
        }
        #expect(s.host.courier.stats.opened == capacity + 1)  // refused, it would be a replay
        try await eventually("the honest message was delivered") {
            s.host.deliveries.contains { $0.sender == s.honest.record && $0.message == m }
        }
        // Not even the flooder is silenced: its own message stamped now still gets through.
        let own = AppMessage.cancel(requestID: id16(3))
        #expect(await s.flooder.courier.send(own, to: s.host.record) == .sent)
        try await eventually("the flooder's own message was handled") {
            let st = s.host.courier.stats
            return st.opened + st.replays == capacity + 3
        }
        #expect(s.host.courier.stats.opened == capacity + 2)
        try await eventually("the flooder's own message was delivered") {
            s.host.deliveries.contains { $0.sender == s.flooder.record && $0.message == own }
        }
    }

    @Test func halfSentMessagesOfOneSenderLeaveAnotherSendersPartsRoom() async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let s = try await scene(relay, loop)
        defer { s.stop() }
        // Sixteen tiny "part 0 of 2" messages, never finished: today the whole shared buffer.
        let halves = try (0..<16).map { i in
            let part = AppMessage.Part(messageID: id16(UInt8(0x10 + i)), index: 0, count: 2, totalLength: 2, bytes: [0])
            return try #require(try s.flooder.courier.seal(.part(part), to: s.host.record).first).bytes
        }
        _ = await s.flooder.sendRaw(halves, to: s.host.record)
        try await eventually("the halves were opened") { s.host.courier.stats.opened == 16 }
        // A long message from another device (two frames) still gets through.
        let long = AppMessage.revoke(.init(grantID: id16(4), reason: String(repeating: "x", count: 60_000)))
        #expect(await s.honest.courier.send(long, to: s.host.record) == .sent)
        try await eventually("the long message was handled") {
            let st = s.host.courier.stats
            return st.partsReassembled + st.partsRefused >= 1
        }
        #expect(s.host.courier.stats.partsReassembled == 1)
        try await eventually("delivered") { s.host.messages == [long] }
    }
}
