import Courier
import PeerLink
import Sealing
import Signing
import Testing
import Wire

/// `Courier.collapseKey`: opaque to the relay, stable per (sender, recipient, kind).
@Suite struct CollapseKeyTests {
    func courier(_ identity: DeviceIdentity) throws -> Courier {
        let link = try PeerLink(configuration: try PeerLink.Configuration(relayURL: "ws://127.0.0.1:9/v1/connect"),
                                identity: identity.signingKey)
        return Courier(link: link, identity: identity, directory: FixedDirectory([]))
    }

    @Test func keysAreStablePerSenderRecipientAndKindAndRevealNoKind() throws {
        let host = try identity("host"), laptop = try identity("laptop"), phone = try identity("phone")
        let a = try courier(host)
        let key = a.collapseKey("advert", to: laptop.signingKey.publicKey)
        #expect(key.count == Courier.collapseKeyLength)
        // Stable: a restarted sender (a new Courier on the same identity) replaces what it stored.
        #expect(try courier(host).collapseKey("advert", to: laptop.signingKey.publicKey) == key)
        // Differs per recipient, per kind and per sender.
        #expect(a.collapseKey("advert", to: phone.signingKey.publicKey) != key)
        #expect(a.collapseKey("roster", to: laptop.signingKey.publicKey) != key)
        #expect(try courier(phone).collapseKey("advert", to: laptop.signingKey.publicKey) != key)
        // The kind's bytes appear nowhere in any key, whatever the kind.
        for kind in ["advert", "roster", "model-choice ollama", "model-choice source", "model-choice local"] {
            let k = a.collapseKey(kind, to: laptop.signingKey.publicKey)
            let word = Array(kind.utf8.prefix(6))
            #expect(!(0...(k.count - word.count)).contains { Array(k[$0..<$0 + word.count]) == word })
            #expect(k != Array(kind.utf8.prefix(k.count)))
        }
    }

    @Test func twoMailsUnderOneKeyCollapseAtTheRealRelay() async throws {
        let relay = try LiveRelay(), loop = try TestLoop()
        defer { relay.stop(); loop.stop() }
        let ia = try identity("host"), ib = try identity("laptop")
        let a = try Device(ia, knows: [ib.record], relay: relay, loop: loop)
        try await a.start()
        let old = AppMessage.modelChoice(.init(modelID: "old", vision: false, sequence: 1, originDevice: .zero))
        let new = AppMessage.modelChoice(.init(modelID: "new", vision: false, sequence: 2, originDevice: .zero))
        // Each send derives its key afresh, as the agents do.
        for m in [old, new] {
            let key = a.courier.collapseKey("model-choice ollama", to: ib.record.signingKey)
            #expect(try await a.courier.sendMail(m, to: ib.record, ttl: .seconds(60), collapseKey: key) == .stored)
        }
        let b = try Device(ib, knows: [ia.record], relay: relay, loop: loop)
        try await b.start()
        try await eventually("B drained its mailbox") { b.events.contains(.queueEmpty) && !b.deliveries.isEmpty }
        #expect(b.messages == [new])
        a.courier.stop(); b.courier.stop()
    }
}
