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
}
