import Foundation
import Glibc
import Testing

/// A friend's Homebase on another relay than the guest's own, as real processes: the host and
/// its invites on relay A, the guest's account on relay B. The guest joins across relays and
/// keeps a link to each; its chat is answered by the friend's Homebase through A; with A down
/// the answer comes on-device at once (not after a watchdog); a revoke sends it on-device.
@Suite(.serialized) struct CrossRelaySharingTests {
    @Test func joinChatRelayDownAndRevokeAcrossRelays() throws {
        let (w, hostKey) = try CrossRelayWorld.withFriendsHomebase()
        defer { w.procs.stopAll() }

        // The guest's own account lives on relay B.
        try w.initGuestOnB("laptop")
        let invite = try w.share(["--models", "tiny"])
        let joined = try w.guest("laptop", ["join", invite, "--as", "alice", "--wait", "30s"] + w.linkFlags)
        #expect(joined.status == 0, "\(joined.err)\n\(w.log("laptop"))")
        #expect(joined.out.contains("joined: models tiny"), "\(joined.out)\n\(w.procs.read("homebase.log"))")
        // relay.json stays the account's.
        let shown = try w.guest("laptop", ["relay", "show"])
        #expect(shown.out.contains("127.0.0.1:\(w.portB)") && !shown.out.contains("127.0.0.1:\(w.portA)"), "\(shown.out)")

        // One status line per link, both connected.
        let status = try w.guest("laptop", ["status"] + w.linkFlags).out
        #expect(status.contains("relay link:    connected to ws://127.0.0.1:\(w.portB)"), "\(status)")
        #expect(status.contains("joined relay:  connected to ws://127.0.0.1:\(w.portA)"), "\(status)")
        #expect(status.contains("\"friend-workstation\""), "\(status)")

        try w.select("laptop", host: hostKey)
        let first = try w.chat("laptop", "hello across relays")
        #expect(first.brain == "joined-homebase", "\(first.line)\n\(w.log("laptop"))")
        #expect(!first.line.contains("fell back"), "\(first.line)")

        // Relay A is gone: the request is not delivered, so the device answers at once (no
        // accept watchdog), and status says why that link is not up. B is unaffected.
        w.killRelayA()
        let started = Date()
        let down = try w.chat("laptop", "is anyone there?")
        let elapsed = Date().timeIntervalSince(started)
        #expect(down.brain == "on-device", "\(down.line)")
        #expect(down.line.contains("fell back: joined-homebase failed") && down.line.contains("not sent"), "\(down.line)")
        #expect(!down.line.contains("timed out"), "\(down.line)")
        print("cross-relay: chat with relay A down answered on-device in \(Int(elapsed * 1000)) ms")
        let downStatus = try w.guest("laptop", ["status"] + w.linkFlags).out
        #expect(downStatus.contains("relay link:    connected to ws://127.0.0.1:\(w.portB)"), "\(downStatus)")
        #expect(downStatus.contains("joined relay:  cannot reach ws://127.0.0.1:\(w.portA)"), "\(downStatus)")

        // A comes back; the Homebase reconnects by itself; the owner revokes: on-device again.
        try w.startRelayA()
        try w.procs.waitUntil(60, "the Homebase to reconnect to relay A") { (w.authenticatedAtA ?? 0) >= 1 }
        let grants = try w.homebase(["grants", "list"])
        let id = try #require(grants.split(separator: "\n").first { $0.contains("active") }.map { String($0.prefix(32)) })
        #expect(try w.homebase(["grants", "revoke", id]).contains("revoked \(id)"))
        let after = try w.chat("laptop", "still there?")
        #expect(after.brain == "on-device", "\(after.line)")
        // The notice is mail: any linked command reads it (it may already have come with the chat).
        try w.procs.waitUntil(30, "the revoke notice through relay A") {
            _ = try w.guest("laptop", ["status"] + w.linkFlags)
            return w.log("laptop").contains("revoke from")
        }
        // Revoked: no reason left to hold a link to A.
        let last = try w.guest("laptop", ["status"] + w.linkFlags).out
        #expect(!last.contains("joined relay:"), "\(last)")
    }

    @Test func aGuestWithoutItsOwnRelayJoinsWithoutAdoptingTheInvitesRelay() throws {
        let (w, hostKey) = try CrossRelayWorld.withFriendsHomebase()
        defer { w.procs.stopAll() }
        let invite = try w.share(["--models", "tiny"])
        let joined = try w.guest("nomad", ["join", invite, "--wait", "30s"] + w.linkFlags)
        #expect(joined.status == 0 && joined.out.contains("joined: models tiny"), "\(joined.out) \(joined.err)")
        // No account relay was set by the join: the invite's relay is the joined Homebase's.
        let shown = try w.guest("nomad", ["relay", "show"])
        #expect(shown.out.contains("no relay"), "\(shown.out)")
        let status = try w.guest("nomad", ["status"] + w.linkFlags).out
        #expect(status.contains("relay link:    none configured"), "\(status)")
        #expect(status.contains("joined relay:  connected to ws://127.0.0.1:\(w.portA)"), "\(status)")
        try w.select("nomad", host: hostKey)
        let answer = try w.chat("nomad", "hello")
        #expect(answer.brain == "joined-homebase", "\(answer.line)\n\(w.log("nomad"))")
    }

    @Test func aSelfSignedRelayIsTrustedOnlyWithThePinGivenAtJoin() throws {
        let w = try CrossRelayWorld(tls: true)
        defer { w.procs.stopAll() }
        let pin = try #require(w.tlsA?.pin)
        _ = try w.startHost("friend-workstation")
        #expect(try w.guest("laptop", ["relay", "set", w.relayB]).status == 0)
        // The invite carries no pin: the system roots do not know this certificate.
        let unpinned = try w.guest("laptop", ["join", try w.share(["--models", "tiny"]), "--wait", "3s"] + w.linkFlags)
        #expect(unpinned.status == 1 && unpinned.err.contains("join with --pin SHA256"), "\(unpinned.out) \(unpinned.err)")
        let refused = try w.guest("laptop", ["status"] + w.linkFlags).out
        #expect(refused.contains("joined relay:  refused by \(w.relayA)"), "\(refused)")
        // With the pin the friend was told out of band, the same relay is trusted for this Homebase.
        let pinned = try w.guest("laptop", ["join", try w.share(["--models", "tiny"]), "--pin", pin, "--wait", "30s"] + w.linkFlags)
        #expect(pinned.status == 0 && pinned.out.contains("joined: models tiny"), "\(pinned.out) \(pinned.err)")
        let status = try w.guest("laptop", ["status"] + w.linkFlags).out
        #expect(status.contains("joined relay:  connected to \(w.relayA)"), "\(status)")
        #expect(status.contains("relay link:    connected to \(w.relayB)"), "\(status)")
        #expect(try w.guest("laptop", ["relay", "show"]).out.contains("pin") == false)
    }
}
