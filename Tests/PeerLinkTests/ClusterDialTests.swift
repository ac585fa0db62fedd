import PeerLink
import Signing
import Testing
import Wire

/// A device that knows several nodes of one relay cluster (`Configuration.alternates`).
@Suite("cluster nodes dialled in turn")
struct ClusterDialTests {
    @Test func aDeadFirstNodeIsSkippedForTheNext() async throws {
        let dead = try ScriptedRelay()
        let deadURL = dead.url
        dead.stop()  // nothing listens on its port any more
        let live = try ScriptedRelay()
        let loop = try TestLoop()
        defer { live.stop(); loop.stop() }
        let (a, rec) = try startLink(deadURL, on: loop) { try! $0.addAlternates([live.url]) }
        try await rec.waitConnected()
        #expect(live.seen.authOK == 1)
        a.stop()
    }

    @Test func aLostNodeMovesTheLinkToTheNextNode() async throws {
        let first = try ScriptedRelay()
        let second = try ScriptedRelay()
        let loop = try TestLoop()
        defer { first.stop(); second.stop(); loop.stop() }
        let (a, rec) = try startLink(first.url, on: loop) { try! $0.addAlternates([second.url]) }
        try await rec.waitConnected()
        #expect(first.seen.authOK == 1)
        first.stopListening()
        first.dropAll()
        try await rec.waitConnected(count: 2)
        #expect(second.seen.authOK == 1)
        #expect(first.seen.authOK == 1)
        a.stop()
    }

    @Test func aNodeNamingTheClustersSharedOriginIsAnswered() async throws {
        // Node 2 is dialled at its own address but names node 1's origin: the cluster's name.
        let first = try ScriptedRelay()
        let firstURL = first.url, shared = first.origin
        first.stop()
        let second = try ScriptedRelay(origin: shared)
        let loop = try TestLoop()
        defer { second.stop(); loop.stop() }
        let (a, rec) = try startLink(firstURL, on: loop) { try! $0.addAlternates([second.url]) }
        try await rec.waitConnected()
        #expect(second.seen.authOK == 1)
        a.stop()
    }

    @Test func everyNodeIsDialledWithTheSameScheme() throws {
        var c = try PeerLink.Configuration(relayURL: "wss://a.example")
        #expect(throws: PeerLinkError.self) { try c.addAlternates(["ws://b.example"]) }
        try c.addAlternates(["wss://b.example", "wss://A.example:443", "wss://b.example/v1/connect"])
        #expect(c.dialOrder.map(\.description) == ["wss://a.example:443/v1/connect", "wss://b.example:443/v1/connect"])
    }
}
