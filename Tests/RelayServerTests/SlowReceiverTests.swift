import Testing
import Wire
@testable import RelayServer

@Suite struct SlowReceiverTests {
    /// A receiver that stops reading loses its own live frames (counted, sender told `dropped`),
    /// while another pair keeps completing round trips. Delivery is asserted, never timing.
    @Test func frozenReceiverDoesNotHoldUpOthers() throws {
        let h = try RelayHarness {
            $0.sendQueueFrames = 8
            $0.socketBufferBytes = 64 * 1024
            $0.rate = 1e6; $0.burst = 1e6
        }
        defer { h.stop() }
        let frozen = try h.device(), flooder = try h.device(), c1 = try h.device(), c2 = try h.device()
        for c in [frozen, flooder, c1, c2] { #expect(try c.next() == .queueEmpty) }
        let frozenWS = frozen.ws
        try h.clients.sync { frozenWS.connection.pauseReading() }

        var dropped = 0
        var batches = 0
        let payload = Array(repeating: UInt8(0xAB), count: 60_000)
        while dropped == 0 && batches < 400 {
            for _ in 0..<16 { flooder.live(to: frozen.key!.publicKey, id: frameID(), payload) }
            let marker = UInt64(batches)
            flooder.send(.ping(marker))
            while true { // everything before the pong was handled by the relay
                let f = try flooder.next()
                if f == .pong(marker) { break }
                if case .dropped = f { dropped += 1 }
            }
            batches += 1
            // The other pair completes a round trip between every batch.
            let id = frameID()
            c1.live(to: c2.key!.publicKey, id: id, [1, 2, 3])
            guard case .receive(let r) = try c2.next(), r.frameID == id else { Issue.record("c2 missed a frame"); return }
            c2.live(to: c1.key!.publicKey, id: id, [4])
            guard case .receive(let back) = try c1.next(), back.frameID == id else { Issue.record("c1 missed a frame"); return }
        }
        #expect(dropped > 0)
        #expect(try h.metric("homebase_relay_drops_total{reason=\"receiver-slow\"}") >= dropped)
        #expect(try h.metric("homebase_relay_send_queue_frames") <= 8)
        // More round trips while the frozen receiver's queue stays full.
        for _ in 0..<20 {
            let id = frameID()
            c1.live(to: c2.key!.publicKey, id: id, [1])
            guard case .receive(let r) = try c2.next(), r.frameID == id else { Issue.record("c2 missed a frame"); return }
        }
    }
}
