import Foundation
@testable import GuestAgent
import Testing

/// One relay, one link, however its URL is spelled: default port written or not, a trailing
/// slash, the host's case. Two links with the same device key would have the relay drop one.
@Suite struct RelaySpellingTests {
    @Test func spellingsOfOneRelayOpenOneLink() async throws {
        let t = GuestLinksTests()
        let c = try t.context()
        let port = try deadLoopbackPort(), other = try deadLoopbackPort()
        try RelayFile(path: c.paths.relaySetting).write(.init(url: "ws://LOCALHOST:\(port)/"))
        let spellings = ["ws://localhost:\(port)", "WS://Localhost:\(port)/v1/connect", "ws://localhost:\(port)/"]
        for s in spellings { _ = try GuestJoin.prepare(try t.checked(s).0, context: c, name: "laptop") }
        let (elsewhere, _) = try t.checked("ws://localhost:\(other)/")
        _ = try GuestJoin.prepare(elsewhere, context: c, name: "laptop")
        // The joined Homebases' relays: the account's one (every spelling) and the other one.
        #expect(JoinedRelay.all(c).count == 2, "\(JoinedRelay.all(c))")
        #expect(GuestJoin.sameRelay("ws://localhost/", "WS://LOCALHOST:80/v1/connect"))
        #expect(!GuestJoin.sameRelay("ws://localhost/", "wss://localhost/"))
        #expect(relayKey("ws://Localhost:80/") == relayKey("ws://localhost"))
        var options = GuestLink.Options()
        options.connectTimeout = .milliseconds(200)
        let links = try #require(try GuestLinks.open(c, options: options))
        defer { links.stop() }
        #expect(links.account != nil && links.joined.count == 1, "one link for the account's relay, one for the other")
        #expect(links.joined.first.map { relayKey($0.setting.url) } == relayKey("ws://localhost:\(other)"))
        await c.shutdown()
    }
}
