import Foundation
import Signing
import Testing
import Wire
@testable import RelayServer

/// `account-max-connections`: one account (its proving devices, and devices its tokens admit)
/// holds at most that many authenticated connections, so an account's leaked proof or a friend
/// with a token cannot take every slot of a public relay; a device reconnecting over its own
/// connection is not counted twice.
@Suite("Connections per account")
struct AccountConnectionTests {
    let base = AccountAdmissionTests()

    func relay(limit: Int) throws -> RelayHarness {
        let a = base.account.publicKey
        return try RelayHarness {
            $0.admission = .allowlist; $0.allowAccounts = [a]; $0.origin = "WS://Relay.Test"
            $0.limits.accountMaxConnections = limit
        }
    }

    func connect(_ h: RelayHarness, _ device: SigningKeyBox) throws -> (TestClient, AuthRefusalReason?) {
        try base.attempt(h, device, before: try base.proof(h, device: device))
    }

    @Test func theAccountsConnectionsStopAtItsLimitAndFreeAsTheyClose() throws {
        let h = try relay(limit: 2)
        defer { h.stop() }
        let (one, two, three) = (SigningKeyBox(), SigningKeyBox(), SigningKeyBox())
        let (c1, r1) = try connect(h, one)
        let (_, r2) = try connect(h, two)
        #expect(r1 == nil && r2 == nil)
        let (_, r3) = try connect(h, three)
        #expect(r3 == .notAdmitted)
        #expect(try h.metric("homebase_relay_auth_failures_total{reason=\"account-connections\"}") == 1)

        // The same device again replaces its own connection: admitted at the limit.
        let (_, again) = try connect(h, two)
        #expect(again == nil)

        c1.close()
        var admitted = false
        for _ in 0..<200 where !admitted {  // the close reaches the relay's loop asynchronously
            admitted = try connect(h, three).1 == nil
            if !admitted { usleep(10_000) }
        }
        #expect(admitted, "a closed connection gives its slot back")
    }

    @Test func anotherAccountIsNotCountedAgainstIt() throws {
        let other = SigningKeyBox()
        let a = base.account.publicKey
        let h = try RelayHarness {
            $0.admission = .allowlist; $0.allowAccounts = [a, other.publicKey]; $0.origin = "WS://Relay.Test"
            $0.limits.accountMaxConnections = 1
        }
        defer { h.stop() }
        #expect(try connect(h, SigningKeyBox()).1 == nil)
        #expect(try connect(h, SigningKeyBox()).1 == .notAdmitted)  // the first account is full
        let device = SigningKeyBox()
        let (_, r) = try base.attempt(h, device, before: try base.proof(h, device: device, by: other))
        #expect(r == nil)
    }
}
