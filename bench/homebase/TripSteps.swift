// The request's trip in, step by step (#24 item 6): each step of guest send → host received
// timed on its own with the bench's real keys, request and relay: encoding, HPKE seal, the relay
// hop (a PeerLink to a PeerLink through the same relay, to the link thread and on to a reading
// task), HPKE open, the replay check (in memory, and in a SQLite ReplayStore as the Homebase
// keeps it), decoding. Twice: on an idle machine (200 times in a row), and once each right after
// an answer from llama-server (20 times), which is when a real request travels: the engine's
// threads are still spinning then, and on two cores every hand-off waits for a core.
import Basics
import BenchSupport
import Courier
import Foundation
import HomebaseAgent
import Inference
import PeerLink
import Sealing
import Signing
import Wire

struct TripSteps {
    static let names = ["encode the request (AppMessage)", "HPKE seal (Envelope.seal)",
                        "HPKE open + replay check in memory (Envelope.open)",
                        "replay check in SQLite (ReplayStore.accept, the Homebase's)", "decode the request (AppMessage)",
                        "relay hop: send → the far link's thread (PeerLink, relay, PeerLink)",
                        "far link's thread → its reading task (AsyncStream)"]
    var idle = Array(repeating: Samples(), count: names.count)
    var afterEngine = Array(repeating: Samples(), count: names.count)

    static func measure(guest: GuestDevice, hostDataDir: String, relayURL: String, engineURL: String,
                        work: String) async throws -> TripSteps {
        var t = TripSteps()
        let hostIdentity = try HostFiles(dataDir: hostDataDir).loadIdentity()
        let message = AppMessage.request(GuestDevice.request(tokens: 512))
        let store = try ReplayStore(path: work + "/trip-replay.sqlite3")
        defer { store.close() }
        var memory = ReplayGuard()
        let links = try await HopLinks(relayURL: relayURL)
        defer { links.stop() }
        func us(_ since: ContinuousClock.Instant) -> Double { ms(ContinuousClock.now - since) * 1000 }
        /// One pass over every step, into `into`.
        func pass(_ into: inout [Samples]) async throws {
            var at = ContinuousClock.now
            let body = try message.encode()
            into[0].add(us(at)); at = .now
            let sealed = try Envelope.seal(body: body, from: guest.identity, to: guest.host, now: nowMs())
            into[1].add(us(at)); at = .now
            let opened = try Envelope.open(sealed.bytes, by: hostIdentity, from: guest.identity.record, replay: &memory, now: nowMs())
            into[2].add(us(at)); at = .now
            try store.accept(opened.messageID, timestamp: opened.timestamp, from: guest.identity.record.signingKey,
                             now: nowMs(), book: .envelopes, limits: ReplayGuard(), senders: 256)
            into[3].add(us(at)); at = .now
            _ = try AppMessage.decode(opened.body)
            into[4].add(us(at))
            let hop = try await links.one(bytes: sealed.bytes.count)
            into[5].add(hop.toLink); into[6].add(hop.toTask)
        }
        for _ in 0..<10 { var warm = t.idle; try await pass(&warm) }
        for _ in 0..<200 { try await pass(&t.idle) }
        let client = OpenAIChatClient(.init(baseURL: engineURL))
        for _ in 0..<20 {
            _ = try await Policy.direct(client, 64)
            try await pass(&t.afterEngine)
        }
        return t
    }

    static func nowMs() -> UInt64 { UInt64(wallClockMs()) }

    /// `wayIn`: the host trace's send → received of a policy run, for "the rest".
    func print(wayIn: Samples) {
        Swift.print("""
            ### The trip in, step by step

            Each step of the guest's send → the request opened at the agent, timed alone with this run's \
            keys, request and relay (µs): 200 passes in a row on an otherwise idle engine, and 20 passes \
            each right after a 64-token answer from llama-server (when a request really travels). The \
            relay hop is a live frame of the request envelope's size between two fresh PeerLinks through \
            the same relay. "The rest" is the trace's send → received p50 minus the steps' p50s (after \
            the engine): the Courier's and the agent's bookkeeping and the hand-offs between their tasks.

            | step | idle p50 µs | idle p99 µs | after the engine p50 µs | after the engine max µs |
            |---|---:|---:|---:|---:|
            """)
        var sum = 0.0
        for (i, name) in Self.names.enumerated() {
            sum += afterEngine[i].p50
            Swift.print("| \(name) | \(fmt(idle[i].p50, 1)) | \(fmt(idle[i].p99, 1)) | \(fmt(afterEngine[i].p50, 1)) | \(fmt(afterEngine[i].max, 1)) |")
        }
        Swift.print("| sum of the steps | \(fmt(idle.map(\.p50).reduce(0, +), 1)) | | \(fmt(sum, 1)) | |")
        Swift.print("| the way in (send → received, the host trace) | | | \(fmt(wayIn.p50, 1)) | \(fmt(wayIn.max, 1)) |")
        Swift.print("| the rest (way in − sum) | | | \(fmt(wayIn.p50 - sum, 1)) | |")
        Swift.print("")
    }
}

/// Two fresh devices on the relay; one live frame at a time from the first to the second.
final class HopLinks {
    let a: PeerLink, b: PeerLink
    var frames: AsyncStream<InboundEvent>.AsyncIterator

    init(relayURL: String) async throws {
        func link() throws -> PeerLink {
            let id = try DeviceIdentity.generate(name: "bench-hop", now: TripSteps.nowMs())
            return try PeerLink(configuration: try PeerLink.Configuration(relayURL: relayURL), identity: id.signingKey)
        }
        a = try link(); b = try link()
        frames = b.inbound.makeAsyncIterator()
        a.start(); b.start()
        let deadline = ContinuousClock.now + .seconds(30)
        while !(a.state.isConnected && b.state.isConnected) {
            guard ContinuousClock.now < deadline else { throw BenchError("the relay-hop links did not connect") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    func stop() { a.stop(); b.stop() }

    /// µs from the send to the far link's thread, and from there to this task.
    func one(bytes: Int) async throws -> (toLink: Double, toTask: Double) {
        let start = ContinuousClock.now
        a.sendLive(to: b.deviceKey, payload: [UInt8](repeating: 0x01, count: bytes), then: nil)
        var got: Inbound?
        while got == nil, let e = await frames.next() { if case .frame(let f) = e { got = f } }
        let read = ContinuousClock.now
        guard let got else { throw BenchError("the relay-hop link ended") }
        return (ms(got.receivedAt - start) * 1000, ms(read - got.receivedAt) * 1000)
    }
}
