// The request's trip in, step by step (#24 item 6): each step of guest send → host received
// timed on its own with the bench's real keys, request and relay: encoding, HPKE seal, the relay
// hop (a PeerLink to a PeerLink through the relay, to the link thread and on to a reading task),
// HPKE open, the replay check (in memory, and in a SQLite ReplayStore as the Homebase keeps it),
// decoding. What the way in measured beyond their sum is the Courier's and the agent's own
// bookkeeping and the hops between their tasks.
import Basics
import BenchSupport
import Courier
import Foundation
import HomebaseAgent
import PeerLink
import Sealing
import Signing
import Synchronization
import Wire

struct TripSteps {
    var rows: [(name: String, us: Samples)] = []

    static func measure(guest: GuestDevice, hostDataDir: String, relayURL: String, work: String, n: Int = 200) async throws -> TripSteps {
        var t = TripSteps()
        let hostIdentity = try HostFiles(dataDir: hostDataDir).loadIdentity()
        let message = AppMessage.request(GuestDevice.request(tokens: 512))
        func timed(_ name: String, _ body: () throws -> Void) rethrows {
            var s = Samples()
            for _ in 0..<n {
                let start = ContinuousClock.now
                try body()
                s.add(ms(ContinuousClock.now - start) * 1000)
            }
            t.rows.append((name, s))
        }
        let body = try message.encode()
        try timed("encode the request (AppMessage)") { _ = try message.encode() }
        var sealed: [SealedMessage] = []
        try timed("HPKE seal (Envelope.seal)") {
            sealed.append(try Envelope.seal(body: body, from: guest.identity, to: guest.host, now: nowMs()))
        }
        var memory = ReplayGuard(), i = 0
        var opened: [UInt8] = []
        try timed("HPKE open + replay check in memory (Envelope.open)") {
            opened = try Envelope.open(sealed[i].bytes, by: hostIdentity, from: guest.identity.record, replay: &memory, now: nowMs()).body
            i += 1
        }
        let store = try ReplayStore(path: work + "/trip-replay.sqlite3")
        defer { store.close() }
        try timed("replay check in SQLite (ReplayStore.accept, the Homebase's)") {
            try store.accept(.random(), timestamp: nowMs(), from: guest.identity.record.signingKey, now: nowMs(),
                             book: .envelopes, limits: ReplayGuard(), senders: 256)
        }
        try timed("decode the request (AppMessage)") { _ = try AppMessage.decode(opened) }
        let hop = try await relayHop(relayURL: relayURL, bytes: sealed[0].bytes.count, n: n)
        t.rows.append(("relay hop: send → the far link's thread (PeerLink, relay, PeerLink)", hop.toLink))
        t.rows.append(("far link's thread → its reading task (AsyncStream)", hop.toTask))
        return t
    }

    static func nowMs() -> UInt64 { UInt64(Date().timeIntervalSince1970 * 1000) }

    /// A live frame of the request envelope's size, one at a time, between two fresh devices.
    static func relayHop(relayURL: String, bytes: Int, n: Int) async throws -> (toLink: Samples, toTask: Samples) {
        func link() throws -> PeerLink {
            let id = try DeviceIdentity.generate(name: "bench-hop", now: nowMs())
            return try PeerLink(configuration: try PeerLink.Configuration(relayURL: relayURL), identity: id.signingKey)
        }
        let a = try link(), b = try link()
        a.start(); b.start()
        defer { a.stop(); b.stop() }
        let deadline = ContinuousClock.now + .seconds(30)
        while !(a.state.isConnected && b.state.isConnected) {
            guard ContinuousClock.now < deadline else { throw BenchError("the relay-hop links did not connect") }
            try await Task.sleep(for: .milliseconds(20))
        }
        var toLink = Samples(), toTask = Samples()
        var frames = b.inbound.makeAsyncIterator()
        let payload = [UInt8](repeating: 0x01, count: bytes)
        for round in -10..<n {  // ten warm-up frames
            let start = ContinuousClock.now
            a.sendLive(to: b.deviceKey, payload: payload, then: nil)
            var got: Inbound?
            while got == nil, let e = await frames.next() { if case .frame(let f) = e { got = f } }
            let read = ContinuousClock.now
            guard let got else { throw BenchError("the relay-hop link ended") }
            if round >= 0 {
                toLink.add(ms(got.receivedAt - start) * 1000)
                toTask.add(ms(read - got.receivedAt) * 1000)
            }
        }
        return (toLink, toTask)
    }

    /// `wayIn`: the host trace's send → received of the same policy run, for "the rest".
    func print(wayIn: Samples) {
        Swift.print("""
            ### The trip in, step by step

            Each step of the guest's send → the request opened at the agent, timed alone (200 times each, \
            µs) with this run's keys, request and relay. The relay hop is a live frame of the request \
            envelope's size between two fresh PeerLinks through the same relay. "The rest" is the trace's \
            send → received p50 minus the steps' p50s: the Courier's and the agent's bookkeeping and the \
            hops between their tasks and threads.

            | step | p50 µs | p99 µs |
            |---|---:|---:|
            """)
        var sum = 0.0
        for r in rows {
            sum += r.us.p50
            Swift.print("| \(r.name) | \(fmt(r.us.p50, 1)) | \(fmt(r.us.p99, 1)) |")
        }
        Swift.print("| sum of the steps | \(fmt(sum, 1)) | |")
        Swift.print("| the way in (send → received, the host trace) | \(fmt(wayIn.p50, 1)) | \(fmt(wayIn.p99, 1)) |")
        Swift.print("| the rest (way in − sum) | \(fmt(wayIn.p50 - sum, 1)) | |")
        Swift.print("")
    }
}
