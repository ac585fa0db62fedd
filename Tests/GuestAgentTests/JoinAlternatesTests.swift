import Foundation
@testable import GuestAgent
import Sealing
import Signing
import Testing
import Wire

/// An invite naming other nodes of the host's relay cluster: kept beside the joined host, and
/// dialled by that relay's link (docs/CLUSTER.md "Devices").
@Suite struct JoinAlternatesTests {
    let host = try! DeviceIdentity.generate(name: "friend", now: 1)
    let now: Int64 = 1_750_000_000_000

    func invite(_ alternates: [String]) throws -> String {
        let i = AppMessage.Invite(relayURL: "ws://127.0.0.1:9", hostSigningKey: host.signingKey.publicKey,
                                  hostHPKEKey: Bytes32(unchecked: host.hpkeKey.publicKey.bytes),
                                  inviteSecret: Secret32(unchecked: randomBytes(count: 32)), models: ["tiny"],
                                  ratePerMinute: 0, expiresMs: UInt64(now + 60_000), alternates: alternates)
        return try InviteCode.encode(i, hostRecord: host.record.encoded)
    }

    @Test func theJoinedHostsRelayKeepsTheInvitesAlternates() throws {
        let paths = GuestPaths(dataDirectory: try temporaryDirectory("guest-tests"))
        let context = try GuestContext(GuestConfiguration(paths: paths, environment: [:]))
        let nodes = ["ws://127.0.0.1:10", "ws://127.0.0.1:11"]
        _ = try GuestJoin.prepare(try GuestJoin.check(try invite(nodes), nowMs: now), context: context, name: "laptop")
        #expect(JoinedHostFiles(paths: paths).alternates(host.signingKey.publicKey) == nodes)
        let relays = JoinedRelay.all(context)
        #expect(relays.count == 1 && relays.first?.setting.alternates == nodes)
        // The account's relay.json is not the joined Homebase's: untouched.
        #expect(try RelayFile(path: paths.relaySetting).read() == nil)
    }

    @Test func anInviteWithoutAlternatesLeavesNoFile() throws {
        let paths = GuestPaths(dataDirectory: try temporaryDirectory("guest-tests"))
        let context = try GuestContext(GuestConfiguration(paths: paths, environment: [:]))
        _ = try GuestJoin.prepare(try GuestJoin.check(try invite([]), nowMs: now), context: context, name: "laptop")
        #expect(JoinedHostFiles(paths: paths).alternates(host.signingKey.publicKey).isEmpty)
        #expect(JoinedRelay.all(context).first?.setting.alternates == nil)
    }

    @Test func anAlternateOfAnotherSchemeIsRefused() throws {
        do {
            _ = try GuestJoin.check(try invite(["wss://node2.example"]), nowMs: now)
            Issue.record("accepted a wss:// node in a ws:// cluster")
        } catch {
            #expect("\(error)".contains("mangled invite") && "\(error)".contains("same scheme"), "\(error)")
        }
    }
}
