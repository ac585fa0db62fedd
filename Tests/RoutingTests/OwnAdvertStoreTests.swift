import Routing
import Signing
import Storage
import TestKit
import Testing
import Wire

@Suite struct OwnAdvertStoreTests {
    let dir: TempDir
    let host = SigningKey.generate()
    let clock = FakeClock()

    init() throws { dir = try TempDir("homebase-routing") }

    func store() throws -> OwnAdvertStore {
        OwnAdvertStore(database: try RoutingSchema.open(path: dir.path("routing.db")),
                       accountHostKey: host.publicKey, clock: clock)
    }

    @Test func acceptsASignedAdvertWithReceiptTimeMinusHeld() throws {
        defer { dir.cleanup() }
        let s = try store()
        #expect(try s.latestOwnAdvert() == nil)
        let advert = try signedAdvert(host, sequence: 1)
        let stored = try s.accept(advert, heldMs: 1_500)
        #expect(stored.receiptMs == clock.nowMs() - 1_500)
        #expect(try s.latestOwnAdvert() == stored)
        #expect(try s.latestOwnAdvert()?.modelTags == ["llama3"])
    }

    @Test func sequenceOnlyMovesForwardAcrossReopens() throws {
        defer { dir.cleanup() }
        let s = try store()
        try s.accept(try signedAdvert(host, sequence: 5, tags: ["five"]), heldMs: 0)
        #expect(routingError { try s.accept(try signedAdvert(host, sequence: 5, tags: ["again"]), heldMs: 0) }
                == .staleSequence(received: 5, lastAccepted: 5))
        #expect(routingError { try s.accept(try signedAdvert(host, sequence: 4), heldMs: 0) }
                == .staleSequence(received: 4, lastAccepted: 5))
        #expect(try s.latestOwnAdvert()?.modelTags == ["five"])

        let reopened = try store()
        #expect(try reopened.lastAcceptedSequence() == 5)
        #expect(routingError { try reopened.accept(try signedAdvert(host, sequence: 3), heldMs: 0) } != nil)
        try reopened.accept(try signedAdvert(host, sequence: 6, tags: ["six"]), heldMs: 0)
        #expect(try reopened.latestOwnAdvert()?.modelTags == ["six"])
    }

    @Test func sequencesAboveInt64MaxCompareAsUnsigned() throws {
        defer { dir.cleanup() }
        let s = try store()
        try s.accept(try signedAdvert(host, sequence: UInt64(Int64.max) + 10), heldMs: 0)
        #expect(routingError { try s.accept(try signedAdvert(host, sequence: 7), heldMs: 0) }
                == .staleSequence(received: 7, lastAccepted: UInt64(Int64.max) + 10))
        try s.accept(try signedAdvert(host, sequence: .max), heldMs: 0)
        #expect(try s.lastAcceptedSequence() == .max)
    }

    @Test func badSignatureAndOtherHostsAreRefused() throws {
        defer { dir.cleanup() }
        let s = try store()
        let stranger = SigningKey.generate()
        #expect(routingError { try s.accept(try signedAdvert(host, sequence: 1, signer: stranger), heldMs: 0) } == .badSignature)
        // Signed correctly, but by a host that is not the account's.
        let e = routingError { try s.accept(try signedAdvert(stranger, sequence: 1), heldMs: 0) }
        guard case .wrongHost? = e else { Issue.record("expected wrongHost, got \(String(describing: e))"); return }
        // A valid advert whose content was altered after signing.
        var tampered = try signedAdvert(host, sequence: 2)
        tampered.models.append(model("extra"))
        #expect(routingError { try s.accept(tampered, heldMs: 0) } == .badSignature)
        #expect(try s.latestOwnAdvert() == nil)
        #expect(try s.lastAcceptedSequence() == nil)
    }

    /// The host's timestamp, far ahead or far behind, changes nothing; held ms ages the advert.
    @Test(arguments: [Int64(-30) * 24 * hour, 0, 3 * hour, 365 * 24 * hour])
    func hostTimestampNeverChangesFreshness(skew: Int64) throws {
        defer { dir.cleanup() }
        let s = try store()
        let stamp = UInt64(clamping: clock.nowMs() + skew)
        let received = try s.accept(try signedAdvert(host, sequence: 1, timestampMs: stamp), heldMs: 0)
        #expect(received.receiptMs == clock.nowMs())
        #expect(received.hostClockSkewMs == Int64(stamp) - clock.nowMs())
        #expect(resolveOwn(s).route.brain == .ownHomebase)
        clock.advance(ms: 11 * minute)
        let stale = resolveOwn(s)
        #expect(stale.route.brain == .onDevice)
        #expect(stale.reason.contains("own Homebase advert is 11 min old (limit 10 min)"))
    }

    @Test func anAdvertHeldFiveHoursInAMailboxIsFiveHoursOld() throws {
        defer { dir.cleanup() }
        let s = try store()
        // Stamped "now" by the host: it was sent five hours ago by our clock only per the relay.
        let held: UInt64 = 5 * 3_600_000
        try s.accept(try signedAdvert(host, sequence: 1, timestampMs: UInt64(clock.nowMs())), heldMs: held)
        let decision = resolveOwn(s)
        #expect(decision.route.brain == .onDevice)
        #expect(decision.reason.contains("5 h old"))
        // Held one minute: fresh.
        try s.accept(try signedAdvert(host, sequence: 2), heldMs: 60_000)
        #expect(resolveOwn(s).route.brain == .ownHomebase)
    }

    @Test func aCorruptStoredAdvertReadsAsNone() throws {
        defer { dir.cleanup() }
        let db = try RoutingSchema.open(path: dir.path("routing.db"))
        let s = OwnAdvertStore(database: db, accountHostKey: host.publicKey, clock: clock)
        try s.accept(try signedAdvert(host, sequence: 1), heldMs: 0)
        try db.execute("UPDATE own_adverts SET advert = ?", [UInt8]([0x01, 0x02]))
        #expect(try s.latestOwnAdvert() == nil)
        #expect(resolveOwn(s).route.brain == .onDevice)
    }

    func resolveOwn(_ s: OwnAdvertStore) -> RouteDecision {
        var f = FakeFacts(clock: clock)
        f.settings.settings = RoutingSettings([.modelSource: "external", .ollamaModel: "llama3"])
        return Router(settings: f.settings, keys: f.keys, localEndpoint: f.endpoint, ownAdverts: s, joined: f.joined,
                      role: FixedHostRole(hostKey: nil), clock: clock, factory: f.factory).resolve()
    }
}
