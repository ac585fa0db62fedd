import Foundation
import Testing

/// Revoking a grant retires its invite (issue 15, hole 6a), with real processes on a real relay:
/// an invite for three devices, one joins, the owner revokes that grant; a fresh identity holding
/// the same invite (two uses left) is refused, and nothing new is granted.
@Suite(.serialized) struct RevokedInviteEndToEndTests {
    @Test func aRevokedGrantsInviteAdmitsNoFreshIdentity() throws {
        let s = try PairScene.withRunningHomebase()
        defer { s.stop() }
        let invite = String(try s.homebase(["share", "--relay", s.relay, "--models", "tiny", "--uses", "3"]).prefix { $0 != "\n" })
        let link = ["--wait", "30s", "--relay-wait", "3s", "--connect-timeout", "2s"]
        let first = try s.guestRun("friend", ["join", invite, "--as", "alice"] + link)
        #expect(first.status == 0 && first.out.contains("joined"), "\(first.out)\n\(first.err)")
        let line = try #require(try s.homebase(["grants", "list"]).split(separator: "\n").first { $0.contains("active") })
        let id = String(line.prefix(32))

        let revoked = try s.homebase(["grants", "revoke", id])
        #expect(revoked.contains("revoked \(id)") && revoked.contains("invite is retired") && revoked.contains("2 uses were left"),
                "\(revoked)")
        let fresh = try s.guestRun("stranger", ["join", invite, "--as", "mallory"] + link)
        #expect(fresh.status == 1 && fresh.err.contains("invite withdrawn"), "\(fresh.out)\n\(fresh.err)")
        let grants = try s.homebase(["grants", "list"])
        #expect(!grants.contains("active") && !grants.contains("mallory"), "\(grants)")
    }
}
