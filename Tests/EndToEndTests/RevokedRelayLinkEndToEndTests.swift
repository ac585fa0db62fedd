import Foundation
import Testing

/// A joined Homebase revoked while `guest serve` runs: serve's link to that Homebase's relay
/// (another relay than the account's) is closed once the revoke notice is in, and the relay no
/// longer counts the guest's connection. Real processes: two relays, the friend's Homebase.
@Suite(.serialized) struct RevokedRelayLinkEndToEndTests {
    @Test func aRevokeWhileServeRunsClosesTheLinkToThatRelay() throws {
        let (w, hostKey) = try CrossRelayWorld.withFriendsHomebase()
        defer { w.procs.stopAll() }
        try w.initGuestOnB("laptop")
        try w.joinAndSelect("laptop", host: hostKey)

        _ = try ServeJoinEndToEndTests.startServe(w, "laptop")
        // Serve opened its link to relay A at its start: the Homebase and the laptop are there.
        try w.procs.waitUntil(60, "serve's link at relay A") { (w.authenticatedAtA ?? 0) == 2 }

        let grants = try w.homebase(["grants", "list"])
        let id = try #require(grants.split(separator: "\n").first { $0.contains("active") }.map { String($0.prefix(32)) })
        #expect(try w.homebase(["grants", "revoke", id]).contains("revoked \(id)"))
        try w.procs.waitUntil(60, "serve to close its link to relay A") {
            w.log("laptop").contains("relay: link to ws://127.0.0.1:\(w.portA) closed: no joined Homebase there is usable")
        }
        try w.procs.waitUntil(60, "relay A to drop the laptop's connection") { w.authenticatedAtA == 1 }
        #expect(w.log("laptop").contains("revoke from"), "\(w.log("laptop"))")
        // Relay B (the account's) is not touched: serve keeps answering (on-device now).
        #expect(!w.log("laptop").contains("link to ws://127.0.0.1:\(w.portB) closed"))
    }
}
