@testable import HomebaseAgent
import Inference
import Sealing
import Signing
import Testing
import Wire

/// What a grant allows beyond chat (#23): `homebase share --tools` stores it in the invite and
/// the grants it makes, `grant-terms` tells the grantee, and admission refuses a grantee's
/// request that carries tools under grants that do not allow them.
@Suite struct GrantToolsTests {
    let store = SharingStoreTests()
    var now: Int64 { store.now }

    static let catalog = ModelCatalog(runtimes: [StoredRuntime(url: "http://e", kind: .ollama, version: nil, available: true,
                                                               models: [RuntimeModel(tag: "m")], addedMs: 0, verifiedMs: 0,
                                                               checkedMs: 0, lastError: nil)])

    /// A turn that continues a tool exchange: role 4 (`tool`) already crosses the wire.
    static let toolTurn: [AppMessage.ChatMessage] = [.init(role: .user, content: "what time is it?"),
                                                     .init(role: .tool, content: "12:00")]

    func decide(_ r: AppMessage.Request, grants: [GrantRecord], sibling: Bool = false,
                from who: PublicKey) -> Admission.Decision {
        var replica = ConversationMemory(capacity: 1), cache = ConversationMemory(capacity: 1)
        let view = AdmissionView(siblings: sibling ? [who] : [], grants: [who: grants], catalog: Self.catalog, nowMs: now)
        return Admission.decide(r, from: who, view: view, replica: &replica, cache: &cache)
    }

    @Test func aGranteeWithoutToolsIsRefusedToolsWithWhatToDo() throws {
        let friend = try DeviceIdentity.generate(name: "friend", now: 1)
        let key = friend.signingKey.publicKey
        let plain = GrantRecord(grantID: .random(), grantee: friend.record, models: ["m"], createdMs: 0)
        let tools = request("m", messages: Self.toolTurn, inline: true)
        guard case .refuse(let e) = decide(tools, grants: [plain], from: key) else {
            Issue.record("a grant without tools served tools"); return
        }
        #expect(e.code == .badRequest)
        #expect(e.message == "this grant does not allow tools: ask the owner to share with --tools")
        // Plain chat under the same grant is served.
        guard case .serve = decide(request("m", inline: true), grants: [plain], from: key) else { Issue.record("plain refused"); return }
        // A grant with tools in force serves it; grants add up.
        var withTools = plain
        withTools.grantID = .random()
        withTools.tools = true
        guard case .serve = decide(tools, grants: [plain, withTools], from: key) else { Issue.record("tools grant refused"); return }
        // An expired tools grant does not count.
        withTools.expiresMs = now - 1
        guard case .refuse = decide(tools, grants: [plain, withTools], from: key) else { Issue.record("expired tools grant counted"); return }
        // The own account's devices never need a grant for tools.
        guard case .serve = decide(tools, grants: [], sibling: true, from: key) else { Issue.record("sibling refused"); return }
    }

    @Test func shareToolsIsStoredInTheGrantAndItsTerms() throws {
        let (s, hosts) = try store.fixture()
        let a = try DeviceIdentity.generate(name: "a", now: 1), b = try DeviceIdentity.generate(name: "b", now: 1)
        for (who, tools) in [(a, true), (b, false)] {
            let secret = randomBytes(count: 32)
            try s.createInvite(StoredInvite(inviteID: .random(), secret: secret, models: ["tiny"], ratePerMinute: 0,
                                            expiresMs: now + 60_000, maxUses: 1, uses: 0, approval: false, createdMs: now,
                                            tools: tools))
            #expect(try s.invites().last?.tools == tools)
            guard case .granted(let join) = try store.join(s, secret, who) else { throw SetupError("not granted") }
            try SharingActions.grant(join, sharing: s, store: hosts, nowMs: now)
            let g = try #require(try hosts.grants().first { $0.grantID == join.grantID })
            #expect(g.tools == tools)
            #expect(GrantTools.terms(g) == AppMessage.GrantTerms(grantID: join.grantID, tools: tools))
        }
    }
}
