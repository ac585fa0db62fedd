@testable import HomebaseAgent
import Inference
import Sealing
import Signing
import Testing
import Wire

/// A grant's terms beyond its models and rate (issue 15, hole 6a and 6b), on real SQLite stores:
/// revoking a grant retires the invite it came from, and a grant expires with its invite unless
/// the invite names its own grant expiry.
@Suite struct GrantTermsTests {
    let store = SharingStoreTests()
    var now: Int64 { store.now }

    func granted(_ s: SharingStore, _ hosts: HostStore, _ secret: [UInt8], _ who: DeviceIdentity) throws -> JoinRecord {
        guard case .granted(let join) = try store.join(s, secret, who) else { throw SetupError("not granted") }
        try SharingActions.grant(join, sharing: s, store: hosts, nowMs: now)
        return join
    }

    @Test func revokingAGrantRetiresItsInvite() throws {
        let (s, hosts) = try store.fixture()
        let secret = try store.invite(s, uses: 3)
        let a = try DeviceIdentity.generate(name: "a", now: 1), b = try DeviceIdentity.generate(name: "b", now: 1)
        let first = try granted(s, hosts, secret, a)
        let said = try SharingActions.revoke(first.grantID, sharing: s, store: hosts)
        #expect(said.contains("revoked") && said.contains("invite") && said.contains("retired"), "\(said)")
        // Two uses were left: a fresh identity holding the invite still cannot join.
        guard case .refused(let why) = try store.join(s, secret, b) else { Issue.record("a fresh identity joined"); return }
        #expect(why.contains("withdrawn"), "\(why)")
        #expect(try hosts.grants().count == 1)
        // The revoked device itself hears its revocation again, as before.
        guard case .again(let again) = try store.join(s, secret, a) else { Issue.record("the revoked joiner was not recognised"); return }
        #expect(again.state == .revoked)
    }

    @Test func aGrantExpiresWithItsInviteByDefault() throws {
        let (s, hosts) = try store.fixture()
        let secret = try store.invite(s, expires: now + 60_000)
        let a = try DeviceIdentity.generate(name: "a", now: 1)
        let join = try granted(s, hosts, secret, a)
        let g = try #require(try hosts.grants().first { $0.grantID == join.grantID })
        #expect(g.expiresMs == now + 60_000)
        #expect(g.isActive(nowMs: now + 59_999) && !g.isActive(nowMs: now + 60_000))
    }

    @Test func anInvitesOwnGrantExpiryIsTheGrants() throws {
        let (s, hosts) = try store.fixture()
        let a = try DeviceIdentity.generate(name: "a", now: 1), b = try DeviceIdentity.generate(name: "b", now: 1)
        for (who, end) in [(a, now + 86_400_000), (b, 0 as Int64)] {
            let secret = randomBytes(count: 32)
            try s.createInvite(StoredInvite(inviteID: .random(), secret: secret, models: ["tiny"], ratePerMinute: 0,
                                            expiresMs: now + 60_000, maxUses: 1, uses: 0, approval: false, createdMs: now,
                                            grantExpiresMs: end))
            let join = try granted(s, hosts, secret, who)
            #expect(try hosts.grants().first { $0.grantID == join.grantID }?.expiresMs == end)
        }
    }

    @Test func approvingAfterTheGrantsEndIsRefused() throws {
        let (s, hosts) = try store.fixture()
        let secret = try store.invite(s, approval: true, expires: now + 60_000)
        let a = try DeviceIdentity.generate(name: "a", now: 1)
        guard case .pending(let join) = try store.join(s, secret, a) else { Issue.record("not pending"); return }
        #expect(throws: HomebaseError.self) { try SharingActions.approve(join.grantID, sharing: s, store: hosts, nowMs: now + 60_000) }
        #expect(try hosts.grants().isEmpty)
    }

    @Test func anExpiredGrantIsNotServedAndSaysSo() {
        let friend = try! DeviceIdentity.generate(name: "friend", now: 1)
        let catalog = ModelCatalog(runtimes: [StoredRuntime(url: "http://e", kind: .ollama, version: nil, available: true,
                                                            models: [RuntimeModel(tag: "m")], addedMs: 0, verifiedMs: 0,
                                                            checkedMs: 0, lastError: nil)])
        let g = GrantRecord(grantID: .random(), grantee: friend.record, models: ["m"], expiresMs: now, createdMs: 0)
        var replica = ConversationMemory(capacity: 1), cache = ConversationMemory(capacity: 1)
        for (at, served) in [(now - 1, true), (now, false)] {
            let view = AdmissionView(siblings: [], grants: [friend.signingKey.publicKey: [g]], catalog: catalog, nowMs: at)
            switch Admission.decide(request("m"), from: friend.signingKey.publicKey, view: view, replica: &replica, cache: &cache) {
            case .serve: #expect(served)
            case .refuse(let e): #expect(!served && e.code == .revoked && e.message.contains("expired"), "\(e)")
            }
        }
    }
}
