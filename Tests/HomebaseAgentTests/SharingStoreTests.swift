@testable import HomebaseAgent
@testable import homebase
import CommandLineKit
import Sealing
import Signing
import Testing
import Wire

/// The host's side of a join, on a real SQLite store: the proof is checked against every
/// invite, then expiry, uses, approval; a join repeated by the same device changes nothing.
@Suite struct SharingStoreTests {
    let host = try! DeviceIdentity.generate(name: "host", now: 1)
    let now: Int64 = 1_750_000_000_000

    func fixture() throws -> (SharingStore, HostStore) {
        let files = HostFiles(dataDir: try temporaryDirectory("sharing"))
        return (try files.openSharing(), try files.openStore())
    }

    func invite(_ s: SharingStore, uses: Int = 1, approval: Bool = false, expires: Int64? = nil) throws -> [UInt8] {
        let secret = randomBytes(count: 32)
        try s.createInvite(StoredInvite(inviteID: .random(), secret: secret, models: ["tiny"], ratePerMinute: 7,
                                        expiresMs: expires ?? now + 60_000, maxUses: uses, uses: 0, approval: approval,
                                        createdMs: now))
        return secret
    }

    func join(_ s: SharingStore, _ secret: [UInt8], _ who: DeviceIdentity, at time: Int64? = nil) throws -> JoinDecision {
        let proof = InviteProof.make(secret: secret, host: host.signingKey.publicKey, joinerRecord: who.record.encoded)
        return try s.admitJoin(proof: proof, joiner: who.record, accountName: "friend", host: host.signingKey.publicKey,
                               nowMs: time ?? now)
    }

    @Test func singleUseThenUsedThenAgain() throws {
        let (s, store) = try fixture()
        let secret = try invite(s)
        let a = try DeviceIdentity.generate(name: "a", now: 1), b = try DeviceIdentity.generate(name: "b", now: 1)
        guard case .granted(let first) = try join(s, secret, a) else { Issue.record("not granted"); return }
        try SharingActions.grant(first, sharing: s, store: store, nowMs: now)
        let g = try #require(try store.grants().first)
        #expect(g.grantID == first.grantID && g.models == ["tiny"] && g.ratePerMinute == 7 && g.grantee == a.record)
        #expect(try join(s, secret, b) == .refused(JoinDecision.used))
        guard case .again(let again) = try join(s, secret, a) else { Issue.record("a repeated join was not recognised"); return }
        #expect(again.grantID == first.grantID)
        #expect(try s.invites().first?.uses == 1)
    }

    @Test func wrongSecretAndExpiryAreRefused() throws {
        let (s, _) = try fixture()
        var secret = try invite(s, expires: now + 1000)
        let a = try DeviceIdentity.generate(name: "a", now: 1)
        #expect(try join(s, secret, a, at: now + 1000) == .refused(JoinDecision.expired))
        secret[5] ^= 1
        #expect(try join(s, secret, a) == .refused(JoinDecision.notRecognised))
        // A proof made for another device does not admit this one.
        let b = try DeviceIdentity.generate(name: "b", now: 1)
        let stolen = InviteProof.make(secret: secret, host: host.signingKey.publicKey, joinerRecord: b.record.encoded)
        #expect(try s.admitJoin(proof: stolen, joiner: a.record, accountName: "x", host: host.signingKey.publicKey,
                                nowMs: now) == .refused(JoinDecision.notRecognised))
    }

    @Test func approvalModeThenApproveThenRevoke() throws {
        let (s, store) = try fixture()
        let secret = try invite(s, uses: 2, approval: true)
        let a = try DeviceIdentity.generate(name: "a", now: 1), b = try DeviceIdentity.generate(name: "b", now: 1)
        guard case .pending(let pa) = try join(s, secret, a), case .pending(let pb) = try join(s, secret, b) else {
            Issue.record("approval mode did not wait"); return
        }
        #expect(try store.grants().isEmpty)
        #expect(try s.joinsWithNoticeDue().isEmpty)  // nothing to tell while pending
        _ = try SharingActions.approve(pa.grantID, sharing: s, store: store, nowMs: now)
        #expect(try s.joinsWithNoticeDue().map(\.grantID) == [pa.grantID])
        #expect(throws: HomebaseError.self) { try SharingActions.approve(pa.grantID, sharing: s, store: store, nowMs: now) }
        #expect(try SharingActions.revoke(pb.grantID, sharing: s, store: store).hasPrefix("refused "))
        try s.markSent(pa.grantID, grant: true)
        #expect(try SharingActions.revoke(pa.grantID, sharing: s, store: store).hasPrefix("revoked "))
        #expect(try store.grants().first?.revoked == true)
        #expect(Set(try s.joinsWithNoticeDue().map(\.grantID)) == [pa.grantID, pb.grantID])
        #expect(throws: HomebaseError.self) { try SharingActions.revoke(pa.grantID, sharing: s, store: store) }
        #expect(throws: HomebaseError.self) { try SharingActions.revoke(.random(), sharing: s, store: store) }
    }

    @Test func shareFlagsParse() throws {
        #expect(try ShareCommand.parseRate("20/min") == 20 && ShareCommand.parseRate("0") == 0)
        #expect(throws: UsageError.self) { try ShareCommand.parseRate("fast") }
        #expect(try ShareCommand.parseLifetime("7d") == 7 * 86_400_000)
        #expect(try ShareCommand.parseLifetime("90m") == 90 * 60_000)
        #expect(throws: UsageError.self) { try ShareCommand.parseLifetime("0s") }
        #expect(throws: UsageError.self) { try ShareCommand.parseLifetime("soon") }
    }
}
