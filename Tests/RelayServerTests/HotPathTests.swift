import Testing
import Wire
@testable import RelayServer
@testable import Transport

/// What a forwarded live frame costs the relay beyond the copy and the write: counted, never timed.
@Suite struct HotPathTests {
    /// Keys are hashed several times per forwarded frame (routing table, rate limit, peer-gone
    /// memory): in one pass over the bytes, not one `combine` per byte (the synthesized hash).
    @Test func fixedBytesHashTheirBytesInOnePass() {
        let key = Bytes32(unchecked: (0..<32).map { UInt8($0 &* 7) })
        let id = Bytes16(unchecked: (0..<16).map { UInt8($0 &+ 100) })
        for (value, bytes) in [(key.hashValue, key.bytes), (id.hashValue, id.bytes)] {
            var h = Hasher()
            bytes.withUnsafeBytes { h.combine(bytes: $0) }
            #expect(value == h.finalize())
        }
        #expect(Set([key, key, Bytes32.zero]).count == 2)
    }

    /// Frame counters in fixed slots render as the labelled samples did: only the slots counted.
    @Test func frameCountsRenderTheSameSamples() {
        var m = Metrics()
        m.frame(.in, .live, bytes: 100)
        m.frame(.in, .live, bytes: 20)
        m.frame(.out, .mail, bytes: 7)
        let text = m.render(.init())
        #expect(text.contains("homebase_relay_frames_total{direction=\"in\",class=\"live\"} 2\n"))
        #expect(text.contains("homebase_relay_bytes_total{direction=\"in\",class=\"live\"} 120\n"))
        #expect(text.contains("homebase_relay_frames_total{direction=\"out\",class=\"mail\"} 1\n"))
        #expect(text.contains("homebase_relay_bytes_total{direction=\"out\",class=\"mail\"} 7\n"))
        #expect(!text.contains("class=\"mail\"} 0") && !text.contains("direction=\"out\",class=\"live\""))
    }

    /// Two devices in a steady exchange (each frame answered): the liveness probe each live frame
    /// starts is ended by the answer, and its timer is reused, not scheduled again per frame
    /// (the old code scheduled and cancelled one timer per forwarded frame).
    @Test func aSteadyExchangeSchedulesNoTimerPerFrame() throws {
        let h = try RelayHarness { $0.probeAfter = .seconds(60) }
        defer { h.stop() }
        let (a, b) = try h.twoDevices()
        try exchange(from: a, to: b, [1])
        try exchange(from: b, to: a, [2])
        let before = try h.onRelay { $0.loop.timers.scheduled }
        let frames = 100
        for i in 0..<frames {
            try exchange(from: a, to: b, [UInt8(truncatingIfNeeded: i)])
            try exchange(from: b, to: a, [UInt8(truncatingIfNeeded: i)])
        }
        let scheduled = try h.onRelay { $0.loop.timers.scheduled } - before
        #expect(scheduled < 10, "\(scheduled) timers for \(2 * frames) forwarded frames")
        // The probe still works: nothing above changed what a quiet device gets.
        try exchange(from: a, to: b, [3])
    }

    /// The live path's `receive` header, written on the stack, is `receiveHeader`'s bytes; the
    /// route check compares the recipient in the frame, and the keys cut on demand are the frame's.
    @Test func theStackReceiveHeaderIsTheArrayOneAndTheRecipientIsComparedInPlace() throws {
        let recipient = Bytes32.repeating(5), sender = Bytes32.repeating(6), id = Bytes16.repeating(7)
        let m = try RelayFrame.send(.init(recipient: recipient, deliveryClass: .live, frameID: id, ttlSeconds: 0,
                                          collapseKey: [], sealed: [1, 2, 3])).encode()
        let v = try SendView.parse(m)
        #expect(v.recipient == recipient && v.frameID == id)
        #expect(v.names(recipient) && !v.names(.repeating(4)))
        let held: UInt64 = 0x0102_0304_0506_0708
        var out = [UInt8](repeating: 0xEE, count: ForwardCodec.receiveHeaderSize)
        out.withUnsafeMutableBytes { ForwardCodec.writeReceiveHeader(into: $0, sender: sender, deliveryClass: .live, send: v, heldMs: held) }
        #expect(out == ForwardCodec.receiveHeader(sender: sender, deliveryClass: .live, frameID: id, heldMs: held, sealedCount: 3))
    }

    /// A sender's cached route follows the routing table: the recipient reconnecting (a new
    /// session for its key) gets the next frame, and once it has left the sender hears `not-here`.
    @Test func aCachedRouteFollowsTheRecipientsReconnectAndLeaving() throws {
        let h = try RelayHarness()
        defer { h.stop() }
        let (a, b) = try h.twoDevices()
        try exchange(from: a, to: b, [1])
        try exchange(from: a, to: b, [2]) // a's route to b is cached now
        let key = b.key!.publicKey
        let b2 = try h.device(b.key!)
        #expect(try b2.next() == .queueEmpty)
        _ = try awaitFrame(a, "peer-gone", isGone(key, .replaced))
        try exchange(from: a, to: b2, [3])
        b2.close()
        _ = try awaitFrame(a, "peer-gone", isGone(key, .closed))
        let id = frameID()
        a.live(to: key, id: id, [4])
        #expect(try a.next() == .notHere(frameID: id))
    }

    /// A probe's waiting frames are kept as flat records and decoded as they were sent.
    @Test func probeWaitingRecordsDecodeToTheirSendersAndIDs() {
        let pairs = [(Bytes32.repeating(1), Bytes16.repeating(2)), (Bytes32.repeating(3), Bytes16.repeating(4))]
        var records: [UInt8] = []
        for (k, id) in pairs { records += k.bytes + id.bytes }
        let decoded = Probe.waiting(records)
        #expect(decoded.count == 2 && Probe.waiting([]).isEmpty)
        for (d, p) in zip(decoded, pairs) { #expect(d.0 == p.0 && d.1 == p.1) }
    }

    /// A device takes from its key's bucket by slot: the bucket the key names (a second
    /// connection of the key does not get a full one), and a prune that forgets full buckets
    /// moves slots and says so with a new generation.
    @Test func rateLimiterSlotsAreTheKeysBuckets() {
        var l = RateLimiter<Bytes32>(rate: 1, burst: 2)
        let k = Bytes32.repeating(1), other = Bytes32.repeating(2)
        let slot = l.slot(for: k, now: 0)
        let first = l.allow(slot: slot, now: 0)
        let second = l.allow(k, now: 0) // the same bucket by key: its second token
        let third = l.allow(slot: l.slot(for: k, now: 0), now: 0)
        #expect(first && second && !third)
        _ = l.slot(for: other, now: 0) // full: forgotten by the prune
        let g = l.generation
        l.prune(now: 0)
        #expect(l.generation != g && l.trackedKeys == 1)
        let afterPrune = l.allow(slot: l.slot(for: k, now: 0), now: 0)
        let otherFresh = l.allow(other, now: 0)
        #expect(!afterPrune && otherFresh)
    }
}
