import Routing
import Signing
import Storage
import TestKit
import Testing
import Wire

@Suite struct JoinedHomebaseStoreTests {
    let dir: TempDir
    let host = SigningKey.generate()
    let clock = FakeClock()
    let hpke = [UInt8](repeating: 3, count: 32)

    init() throws { dir = try TempDir("homebase-routing") }

    func store() throws -> JoinedHomebaseStore {
        JoinedHomebaseStore(database: try RoutingSchema.open(path: dir.path("routing.db")), clock: clock)
    }

    func invite(_ s: JoinedHomebaseStore, models: [String] = ["mistral:7b"]) throws {
        try s.addInvite(hostKey: host.publicKey, hpkeKey: hpke, relayURL: "wss://relay.friend.example", models: models)
    }

    @Test func stateMachine() throws {
        defer { dir.cleanup() }
        let s = try store()
        #expect(routingError { try s.markJoined(host.publicKey) } != nil)
        try invite(s)
        #expect(try s.joinedRecord(host.publicKey)?.state == .invited)
        try s.markJoined(host.publicKey)
        try s.markJoined(host.publicKey)  // idempotent
        #expect(try s.joinedRecord(host.publicKey)?.state == .joined)
        // A new invite keeps the join, takes the new relay.
        try s.addInvite(hostKey: host.publicKey, hpkeKey: hpke, relayURL: "wss://other.example", models: ["a"])
        #expect(try s.joinedRecord(host.publicKey)?.state == .joined)
        #expect(try s.joinedRecord(host.publicKey)?.relayURL == "wss://other.example")
        try s.markRevoked(host.publicKey)
        #expect(try s.joinedRecord(host.publicKey)?.state == .revoked)
        guard case .invalidTransition? = routingError({ try s.markJoined(host.publicKey) }) else {
            Issue.record("joining a revoked host must be refused"); return
        }
        try invite(s)  // re-invited after a revoke
        #expect(try s.joinedRecord(host.publicKey)?.state == .invited)
        #expect(try s.all().map(\.hostKey) == [host.publicKey])
        try s.remove(host.publicKey)
        #expect(try s.joinedRecord(host.publicKey) == nil)
    }

    /// The router judges a joined model's tools and sight by what its adverts said, and tools
    /// by the grant's terms: both are stored, and survive a grant's new model list.
    @Test func advertisedCapabilitiesAndGrantTermsAreKept() throws {
        defer { dir.cleanup() }
        let s = try store()
        try invite(s, models: ["llava", "llama3"])
        try s.markJoined(host.publicKey)
        var record = try #require(try s.joinedRecord(host.publicKey))
        #expect(record.capabilities.isEmpty)  // only the invite's tags: unknown
        #expect(!record.toolsGranted)  // until the host says so
        try s.setToolsGranted(host.publicKey, true)
        var advert = AppMessage.Advert(hostKey: host.publicKey, sequence: 1, timestampMs: 0,
                                       models: [model("llava", [.completion, .vision]), model("llama3", [.completion, .tools])])
        advert.signature = Bytes64(host.sign(try advert.signedBytes()))!
        try s.acceptAdvert(advert, heldMs: 0)
        record = try #require(try s.joinedRecord(host.publicKey))
        #expect(record.capabilities == ["llava": [.completion, .vision], "llama3": [.completion, .tools]])
        #expect(record.toolsGranted)
        // A grant naming a new list keeps what is known of the tags it keeps.
        try s.setModels(host.publicKey, ["llama3", "new"])
        record = try #require(try s.joinedRecord(host.publicKey))
        #expect(record.models == ["llama3", "new"])
        #expect(record.capabilities == ["llama3": [.completion, .tools]])
        try s.setToolsGranted(host.publicKey, false)
        #expect(try s.joinedRecord(host.publicKey)?.toolsGranted == false)
        #expect(routingError { try s.setToolsGranted(SigningKey.generate().publicKey, true) } != nil)
    }

    @Test func invalidRecordsAreRefused() throws {
        defer { dir.cleanup() }
        let s = try store()
        guard case .invalidRecord? = routingError({
            try s.addInvite(hostKey: host.publicKey, hpkeKey: [1, 2, 3], relayURL: "wss://r.example", models: [])
        }) else { Issue.record("short HPKE key accepted"); return }
        guard case .invalidRecord? = routingError({
            try s.addInvite(hostKey: host.publicKey, hpkeKey: hpke, relayURL: "", models: [])
        }) else { Issue.record("empty relay accepted"); return }
        #expect(try s.all().isEmpty)
    }

    @Test func anyInboundFrameRefreshesLastHeardNeverBackwards() throws {
        defer { dir.cleanup() }
        let s = try store()
        #expect(try s.heard(from: host.publicKey, heldMs: 0) == false)
        try invite(s)
        #expect(try s.joinedRecord(host.publicKey)?.lastHeardMs == nil)
        #expect(try s.heard(from: host.publicKey, heldMs: 2_000))
        #expect(try s.joinedRecord(host.publicKey)?.lastHeardMs == clock.nowMs() - 2_000)
        // A frame that sat a day in the mailbox does not move last-heard back.
        #expect(try s.heard(from: host.publicKey, heldMs: 24 * 3_600_000))
        #expect(try s.joinedRecord(host.publicKey)?.lastHeardMs == clock.nowMs() - 2_000)
        clock.advance(ms: minute)
        try s.heard(from: host.publicKey, heldMs: 0)
        #expect(try s.joinedRecord(host.publicKey)?.lastHeardMs == clock.nowMs())
    }

    @Test func advertsVerifyMoveForwardAndReplaceModels() throws {
        defer { dir.cleanup() }
        let s = try store()
        #expect(routingError { try s.acceptAdvert(try signedAdvert(host, sequence: 1), heldMs: 0) }
                == .unknownHomebase(hostKey: String(host.publicKey.hex.prefix(8)) + "…"))
        try invite(s, models: [])
        let record = try s.acceptAdvert(try signedAdvert(host, sequence: 3, tags: ["qwen:14b", "llama3"]), heldMs: 500)
        #expect(record.models == ["qwen:14b", "llama3"])
        #expect(record.lastHeardMs == clock.nowMs() - 500)
        #expect(routingError { try s.acceptAdvert(try signedAdvert(host, sequence: 3), heldMs: 0) }
                == .staleSequence(received: 3, lastAccepted: 3))
        #expect(routingError { try s.acceptAdvert(try signedAdvert(host, sequence: 9, signer: SigningKey.generate()), heldMs: 0) }
                == .badSignature)
        #expect(try s.joinedRecord(host.publicKey)?.models == ["qwen:14b", "llama3"])
        try s.setModels(host.publicKey, [])
        #expect(try s.joinedRecord(host.publicKey)?.models == [])
    }

    /// Through the router with the real store: only an accepted, fresh join with models routes.
    @Test func routesOnlyAcceptedFreshJoinsWithModels() throws {
        defer { dir.cleanup() }
        let s = try store()
        func route() -> RouteDecision {
            var f = FakeFacts(clock: clock)
            f.settings.settings = RoutingSettings([.modelSource: "external", .ollamaModel: "mistral:7b",
                                                   .ollamaHost: host.publicKey.hex.uppercased()])
            f.endpoint.endpoint = LocalEndpoint(url: "http://127.0.0.1:11434", models: ["mistral:7b"])
            return Router(settings: f.settings, keys: f.keys, localEndpoint: f.endpoint, ownAdverts: f.own, joined: s,
                          role: FixedHostRole(hostKey: nil), clock: clock, factory: f.factory).resolve()
        }
        #expect(route().route.brain == .onDevice)  // not on file; the local endpoint is never tried
        try invite(s)
        try s.heard(from: host.publicKey, heldMs: 0)
        #expect(route().route.brain == .onDevice)  // invitation not accepted
        #expect(route().reason.contains("invited, not joined"))
        try s.markJoined(host.publicKey)
        #expect(route().route.brain == .joinedHomebase && route().route.homebaseKey == host.publicKey)
        clock.advance(ms: 24 * hour)
        #expect(route().route.brain == .onDevice)
        #expect(route().reason.contains("last heard 24 h ago (limit 24 h)"))
        try s.heard(from: host.publicKey, heldMs: 0)
        #expect(route().route.name == "external")
        try s.markRevoked(host.publicKey)
        #expect(route().route.brain == .onDevice)
    }
}
