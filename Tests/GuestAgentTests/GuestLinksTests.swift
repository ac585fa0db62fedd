import Foundation
@testable import GuestAgent
import Glibc
import Routing
import Sealing
import Signing
import Testing
import Wire

/// Several relays: a join keeps the account's relay as it is and stores the invite's relay (and
/// its pin) with the joined Homebase; the links open one per distinct relay of the Homebases
/// still invited or joined, and each says whether it is connected. Relays here are loopback
/// ports nobody listens on: the links' "cannot reach" is the real PeerLink's.
@Suite struct GuestLinksTests {
    let now: Int64 = 1_750_000_000_000
    let pin = String(repeating: "ab", count: 32)

    func checked(_ relay: String) throws -> (GuestJoin.Checked, DeviceIdentity) {
        let host = try DeviceIdentity.generate(name: "friend", now: 1)
        let i = AppMessage.Invite(relayURL: relay, hostSigningKey: host.signingKey.publicKey,
                                  hostHPKEKey: Bytes32(unchecked: host.hpkeKey.publicKey.bytes),
                                  inviteSecret: Secret32(unchecked: randomBytes(count: 32)), models: ["tiny"],
                                  ratePerMinute: 0, expiresMs: UInt64(now + 60_000))
        return (try GuestJoin.check(try InviteCode.encode(i, hostRecord: host.record.encoded), nowMs: now), host)
    }

    func context() throws -> GuestContext {
        try GuestContext(GuestConfiguration(paths: GuestPaths(dataDirectory: try temporaryDirectory("guest-tests")), environment: [:]))
    }

    @Test func joiningElsewhereKeepsTheAccountRelayAndStoresThePin() async throws {
        let c = try context()
        let account = RelayFile.Setting(url: "ws://127.0.0.1:1")
        try RelayFile(path: c.paths.relaySetting).write(account)
        let (invite, host) = try checked("ws://127.0.0.1:2")
        _ = try GuestJoin.prepare(invite, context: c, name: "laptop", pin: pin)
        #expect(try RelayFile(path: c.paths.relaySetting).read() == account)
        #expect(try c.joined.joinedRecord(host.signingKey.publicKey)?.relayURL == "ws://127.0.0.1:2")
        #expect(JoinedHostFiles(paths: c.paths).pin(host.signingKey.publicKey) == pin)
        // Joining again without --pin drops the old pin: the system roots again.
        _ = try GuestJoin.prepare(invite, context: c, name: "laptop")
        #expect(JoinedHostFiles(paths: c.paths).pin(host.signingKey.publicKey) == nil)
        let (other, _) = try checked("wss://relay.example")
        #expect(throws: GuestError.self) { try GuestJoin.prepare(other, context: c, name: "laptop", pin: "12") }
        await c.shutdown()
    }

    @Test func joinedRelaysAreOnePerRelayAndSkipRevokedHomebases() async throws {
        let c = try context()
        let (a1, _) = try checked("ws://127.0.0.1:7/v1/connect")
        let (a2, _) = try checked("ws://127.0.0.1:7")  // the same relay, spelled shorter
        let (b, h3) = try checked("ws://127.0.0.1:8")
        _ = try GuestJoin.prepare(a1, context: c, name: "laptop")
        _ = try GuestJoin.prepare(a2, context: c, name: "laptop", pin: pin)
        _ = try GuestJoin.prepare(b, context: c, name: "laptop")
        #expect(JoinedRelay.all(c).count == 2)
        try c.joined.markRevoked(h3.signingKey.publicKey)
        let relays = JoinedRelay.all(c)
        #expect(relays.count == 1 && relays.first?.pin == pin, "\(relays)")
        #expect(relays.first?.hosts.count == 2)
        #expect(relays.first.map { GuestJoin.sameRelay($0.url, "ws://127.0.0.1:7") } == true)
        await c.shutdown()
    }

    @Test func linksOpenOnePerRelayAndSayWhyTheyAreDown() async throws {
        let c = try context()
        let accountPort = try deadLoopbackPort(), joinedPort = try deadLoopbackPort()
        try RelayFile(path: c.paths.relaySetting).write(.init(url: "ws://127.0.0.1:\(accountPort)"))
        // One Homebase on the account's own relay (no second link), one on another relay.
        let (same, _) = try checked("ws://127.0.0.1:\(accountPort)/v1/connect")
        let (other, _) = try checked("ws://127.0.0.1:\(joinedPort)")
        _ = try GuestJoin.prepare(same, context: c, name: "laptop")
        _ = try GuestJoin.prepare(other, context: c, name: "laptop")
        var options = GuestLink.Options()
        options.connectTimeout = .milliseconds(500)
        let links = try #require(try GuestLinks.open(c, options: options))
        defer { links.stop() }
        #expect(links.account != nil && links.joined.count == 1 && c.factory.isLinked)
        #expect(links.link(forRelay: "ws://127.0.0.1:\(accountPort)") === links.account)
        #expect(links.link(forRelay: "ws://127.0.0.1:\(joinedPort)/v1/connect") === links.joined.first)
        await links.waitForBacklog()  // both down: returns once each link has failed, or at the bound
        var lines: [String] = []
        for _ in 0..<300 {  // a hang guard, not a speed check
            lines = links.statusLines
            if lines.allSatisfy({ $0.contains("cannot reach") }) { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.first?.hasPrefix("relay link:    cannot reach ws://127.0.0.1:\(accountPort)") == true, "\(lines)")
        #expect(lines.last?.hasPrefix("joined relay:  cannot reach ws://127.0.0.1:\(joinedPort)") == true, "\(lines)")
        #expect(lines.last?.contains("\"friend\"") == true, "\(lines)")
        await c.shutdown()
    }

    @Test func nothingOpensWithoutAnyRelayOrWithOnlyRevokedHomebases() async throws {
        let c = try context()
        #expect(try GuestLinks.open(c) == nil)
        let (invite, host) = try checked("ws://127.0.0.1:\(try deadLoopbackPort())")
        _ = try GuestJoin.prepare(invite, context: c, name: "laptop")
        try c.joined.markRevoked(host.signingKey.publicKey)
        #expect(try GuestLinks.open(c) == nil)
        #expect(!c.factory.isLinked)
        await c.shutdown()
    }
}
