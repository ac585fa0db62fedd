import Foundation
@testable import HomebaseAgent
import Pairing
import Sealing
import Signing
import Testing
import Wire

/// A used pairing code never adds a device (issue 15, hole 1): the welcome is sent again only to
/// the device it paired, while that device is still in the roster (with the same record) and the
/// code is still valid; removing the device retires its codes; expiry is checked first.
@Suite struct PairingReuseTests {
    typealias Setup = PairingDecisionTests.Setup

    func reason(_ m: AppMessage) -> AppMessage.PairRefused? {
        if case .pairRefused(let r) = m { return r }
        return nil
    }

    func listed(_ s: Setup, _ d: DeviceIdentity) throws -> Bool {
        try s.store.devices().contains { $0.record.signingKey == d.signingKey.publicKey }
    }

    /// Moves a stored code's expiry (the store's own column: no clock to wait for).
    func expire(_ s: Setup, _ c: PairingCode) throws {
        _ = try s.store.db.execute("UPDATE pairing_codes SET expires_ms = ? WHERE code_id = ?", nowMs() - 1, c.codeID.bytes)
    }

    @Test func aRemovedDeviceCannotReAddItselfWithItsOldCode() async throws {
        try await Setup.with { s in
            let c = try s.code()
            guard case .pairWelcome = s.ask(c) else { Issue.record("no welcome"); return }
            try s.store.removeDevice(s.joiner.signingKey.publicKey, host: s.fixture.host.signingKey,
                                     accountKey: s.fixture.accountKey)
            let removed = try s.store.roster()!.version
            let r = reason(s.ask(c))
            #expect(r?.reason == .used, "\(String(describing: r))")
            #expect(try !listed(s, s.joiner))
            #expect(try s.store.roster()!.version == removed)  // no new roster for anyone to be mailed
        }
    }

    @Test func removingADeviceRetiresTheCodesItUsed() async throws {
        try await Setup.with { s in
            let c = try s.code(), other = try s.code()
            guard case .pairWelcome = s.ask(c) else { Issue.record("no welcome"); return }
            try s.store.removeDevice(s.joiner.signingKey.publicKey, host: s.fixture.host.signingKey,
                                     accountKey: s.fixture.accountKey)
            let retired = try #require(try s.store.pairing(c.codeID))
            #expect(PairingStatus(retired).state == "retired")
            #expect(try s.store.pairing(other.codeID)?.state == .open)  // an open code of nobody stays open
            // Paired again with a fresh code, the old one still adds nothing.
            guard case .pairWelcome = s.ask(other) else { Issue.record("a fresh code did not pair"); return }
            try s.store.removeDevice(s.joiner.signingKey.publicKey, host: s.fixture.host.signingKey,
                                     accountKey: s.fixture.accountKey)
            #expect(reason(s.ask(c))?.reason == .used)
            #expect(try !listed(s, s.joiner))
        }
    }

    @Test func aUsedCodePastItsExpiryIsRefusedEvenToItsDevice() async throws {
        try await Setup.with { s in
            let c = try s.code()
            guard case .pairWelcome = s.ask(c) else { Issue.record("no welcome"); return }
            try expire(s, c)
            #expect(reason(s.ask(c))?.reason == .expired)
            #expect(try listed(s, s.joiner))  // still a device: expiry only ends the resending
        }
    }

    @Test func expiryComesBeforeEveryOtherState() async throws {
        try await Setup.with { s in
            let c = try s.code(tries: 1)
            #expect(reason(s.ask(c, proof: Bytes32(unchecked: randomBytes(count: 32))))?.reason == .burnt)
            try expire(s, c)
            #expect(reason(s.ask(c))?.reason == .expired)
        }
    }

    @Test func aUsedCodeNeverChangesTheRecordOfItsDevice() async throws {
        try await Setup.with { s in
            let c = try s.code()
            guard case .pairWelcome(let w) = s.ask(c) else { Issue.record("no welcome"); return }
            // The same signing key with another HPKE key: not the device the code paired.
            let changed = try DeviceIdentity(signingKey: s.joiner.signingKey, hpkeKey: .generate(), name: "laptop", createdAt: 2)
            #expect(reason(s.ask(c, as: changed))?.reason == .used)
            let stored = try s.store.devices().first { $0.record.signingKey == s.joiner.signingKey.publicKey }
            #expect(stored?.record == s.joiner.record)
            #expect(try s.store.roster()!.version == w.roster.version)
        }
    }

    @Test func theLostWelcomeIsSentAgainWithTheCurrentRoster() async throws {
        try await Setup.with { s in
            let c = try s.code()
            guard case .pairWelcome(let w) = s.ask(c) else { Issue.record("no welcome"); return }
            let phone = try DeviceIdentity.generate(name: "phone", now: 1)
            try s.store.addDevice(phone.record, accountKey: s.fixture.accountKey, nowMs: nowMs())
            guard case .pairWelcome(let again) = s.ask(c) else { Issue.record("not welcomed again"); return }
            #expect(again.roster.version == w.roster.version + 1 && again.roster.verifies())
            #expect(PairingProofs.equal(again.proof, try PairingProofs.welcome(secret: c.secret, joiner: s.joiner.signingKey.publicKey, again)))
        }
    }
}
