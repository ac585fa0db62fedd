import Courier
import Foundation
import PeerLink
import Sealing
import Signing
import Testing
import Wire
@testable import HomebaseAgent

// Issue 15, hole 5: a revocation (or grant) still waiting for the relay when the Homebase
// stops is mailed again by the next run: it counts as told only once the relay stored it.
extension MailDurabilityTests {
    @Test func aRevocationAnsweredMailboxFullReachesItsGranteeAfterARestart() async throws {
        let lines = Lines()
        let f = try await HostFixture(runtime: nil, relayConfig: { $0.mailboxMaxFrames = 4 }, configure: { c in
            c.log = { lines.add($0) }
            c.mailRetry = Backoff(initial: .milliseconds(20), maximum: .milliseconds(100), jitter: 0)
        })
        let friend = try GuestSide(relayURL: f.relay.url, host: f.host, name: "friend")
        try await run(f) {
            // A revoked grant whose revocation is still to be told, as `homebase grants revoke` leaves it.
            let grantID = Bytes16.random()
            _ = try f.agent.sharing.db.execute("""
                INSERT INTO joins(grant_id, invite_id, joiner_key, joiner_record, account_name, state, created_ms)
                VALUES (?, ?, ?, ?, 'friend', 'revoked', ?)
                """, grantID.bytes, Bytes16.random().bytes, friend.identity.signingKey.publicKey.bytes,
                friend.identity.record.encoded, nowMs())
            // A stranger fills the friend's mailbox while it is away.
            let stranger = try await strangerFillingMailbox(of: friend.identity.signingKey.publicKey, at: f.relay.url)
            defer { stranger.stop() }
            f.agent.start()
            try await eventually("the revocation answered mailbox-full") { lines.count("revoke to") >= 1 && lines.count("full") >= 1 }
            await f.agent.stop()

            // The next run, on the same data directory; then the friend wakes and drains its mailbox.
            let again = try HomebaseAgent(configuration: f.agent.configuration, files: f.files)
            again.start()
            defer { friend.stop() }
            do {
                try await friend.start()
                let courier = friend.courier
                let got = try await within(20, "the revocation after the restart") {
                    for await d in courier.deliveries {
                        d.ack()
                        if case .revoke(let r) = d.message, r.grantID == grantID { return r }
                    }
                    throw TestSetupError("deliveries ended before the revocation")
                }
                #expect(got.reason == "revoked by the host")
                try await eventually("the store says it was told") { try again.sharing.join(grantID)?.revokeSent == true }
            } catch {
                await again.stop()
                throw error
            }
            await again.stop()
        }
    }
}
