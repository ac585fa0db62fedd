import Courier
import Foundation
import Sealing
import Testing
import Wire
@testable import HomebaseAgent

/// Replica (own account) and cache (grantees) through the relay, and grants.
@Suite(.serialized) struct ConversationTests {
    static func hash(_ messages: [AppMessage.ChatMessage]) -> Bytes32 {
        Bytes32(unchecked: ConversationHash.of(messages.map { ($0.role.rawValue, $0.content) }))
    }

    @Test func aSiblingExtendsTheReplicaAndDivergesOnAnUnknownPrefix() async throws {
        try await HostFixture.with(runtime: (try ScriptedEngine.url("ok"), ["scripted"])) { f in
            let conversation = Bytes16.random()
            let first: [AppMessage.ChatMessage] = [.init(role: .user, content: "Say hello")]
            let (_, a) = await f.guest.ask(request("scripted", conversation: conversation, messages: first), to: f.host)
            #expect(a.done != nil)
            // The host now holds the question and its answer: the next request sends only the new turn.
            let held = first + [.init(role: .assistant, content: "Hello!")]
            let next: [AppMessage.ChatMessage] = [.init(role: .user, content: "Again")]
            let (_, b) = await f.guest.ask(request("scripted", conversation: conversation, prefix: Self.hash(held),
                                                   messages: next), to: f.host)
            #expect(b.done != nil)
            // A prefix it never saw: diverged.
            let (_, c) = await f.guest.ask(request("scripted", conversation: conversation, prefix: .repeating(7),
                                                   messages: next), to: f.host)
            #expect(c.error?.code == .diverged)
            #expect(!c.accepted)
        }
    }

    @Test func aSyncDeltaRepairsADivergedReplica() async throws {
        try await HostFixture.with(runtime: (try ScriptedEngine.url("ok"), ["scripted"])) { f in
            let conversation = Bytes16.random()
            let earlier: [AppMessage.ChatMessage] = [.init(role: .system, content: "Be brief"), .init(role: .user, content: "Hi"),
                                                     .init(role: .assistant, content: "Hello")]
            let next: [AppMessage.ChatMessage] = [.init(role: .user, content: "More")]
            let (_, before) = await f.guest.ask(request("scripted", conversation: conversation, prefix: Self.hash(earlier),
                                                        messages: next), to: f.host)
            #expect(before.error?.code == .diverged)
            let delta = AppMessage.SyncDelta(conversationID: conversation, basePrefixHash: .zero, appended: earlier,
                                             resultingPrefixHash: Self.hash(earlier))
            #expect(await f.guest.courier.send(.syncDelta(delta), to: f.host) == .sent)
            try await eventually("the replica holds the delta") {
                f.agent.state.withLock { $0.memory.replica.count == 1 }
            }
            let (_, after) = await f.guest.ask(request("scripted", conversation: conversation, prefix: Self.hash(earlier),
                                                       messages: next), to: f.host)
            #expect(after.done != nil)
            #expect(after.text == "Hello!")
        }
    }

    @Test func theReplicaSurvivesARestart() async throws {
        try await HostFixture.with(runtime: (try ScriptedEngine.url("ok"), ["scripted"])) { f in
            let conversation = Bytes16.random()
            let first: [AppMessage.ChatMessage] = [.init(role: .user, content: "Say hello")]
            let (_, a) = await f.guest.ask(request("scripted", conversation: conversation, messages: first), to: f.host)
            #expect(a.done != nil)
            await f.agent.stop()
            let again = try HomebaseAgent(configuration: f.agent.configuration, files: f.files)
            again.start()
            try await eventually("the new agent is connected") { again.courier.link.state.isConnected }
            let held = first + [.init(role: .assistant, content: "Hello!")]
            let (_, b) = await f.guest.ask(request("scripted", conversation: conversation, prefix: Self.hash(held),
                                                   messages: [.init(role: .user, content: "Again")]), to: f.host)
            await again.stop()
            #expect(b.error == nil)
            #expect(b.done != nil)
        }
    }

    @Test func storedReplicasAreBounded() throws {
        let files = HostFiles(dataDir: try temporaryDirectory("host"))
        _ = try files.initialize(name: "w", nowMs: nowMs())
        let store = try files.openStore()
        defer { store.close() }
        let m: [AppMessage.ChatMessage] = [.init(role: .user, content: "x")]
        for i in 0..<5 { try store.saveReplica([UInt8(i)], m, nowMs: Int64(i), capacity: 3) }
        #expect(try store.loadReplica([0]) == nil && store.loadReplica([1]) == nil)
        #expect(try store.loadReplica([4]) == m && store.loadReplica([2]) == m)
    }

    /// A grantee device: not in the roster, a grant for `models`.
    func grantee(_ f: HostFixture, models: [String], id: Bytes16 = .random()) throws -> GrantRecord {
        let g = GrantRecord(grantID: id, grantee: f.guest.identity.record, models: models,
                            createdMs: nowMs())
        let store = try f.files.openStore()
        try store.saveGrant(g)
        store.close()
        return g
    }

    @Test func aGranteeMissesTheCacheThenInlines() async throws {
        try await HostFixture.with(runtime: (try ScriptedEngine.url("ok"), ["scripted", "other"]), sibling: false,
                                   prepare: { _ = try grantee($0, models: ["scripted"]) }) { f in
            let whole: [AppMessage.ChatMessage] = [.init(role: .user, content: "Hi"), .init(role: .assistant, content: "Hello"),
                                                   .init(role: .user, content: "More")]
            let conversation = Bytes16.random()
            let (_, miss) = await f.guest.ask(request("scripted", conversation: conversation, prefix: Self.hash(Array(whole.prefix(2))),
                                                      messages: [whole[2]]), to: f.host)
            #expect(miss.error?.code == .cacheMiss)
            let (_, inline) = await f.guest.ask(request("scripted", conversation: conversation, messages: whole, inline: true),
                                                to: f.host)
            #expect(inline.done != nil)
            // Now cached: the next turn extends it without inlining.
            let cached = whole + [.init(role: .assistant, content: "Hello!")]
            let (_, hit) = await f.guest.ask(request("scripted", conversation: conversation, prefix: Self.hash(cached),
                                                     messages: [.init(role: .user, content: "Thanks")]), to: f.host)
            #expect(hit.done != nil)
            // A model outside the grant is unavailable to the grantee, though the host serves it.
            let (_, other) = await f.guest.ask(request("other", inline: true), to: f.host)
            #expect(other.error?.code == .modelUnavailable)
        }
    }

    @Test func aGranteeOverItsRateIsBusy() async throws {
        try await HostFixture.with(runtime: (try ScriptedEngine.url("ok"), ["scripted"]), sibling: false, prepare: { f in
            let store = try f.files.openStore()
            try store.saveGrant(GrantRecord(grantID: .random(), grantee: f.guest.identity.record, models: ["scripted"],
                                            ratePerMinute: 1, createdMs: nowMs()))
            store.close()
        }) { f in
            let (_, first) = await f.guest.ask(request("scripted", inline: true), to: f.host)
            #expect(first.done != nil)
            let (_, second) = await f.guest.ask(request("scripted", inline: true), to: f.host)
            #expect(second.error?.code == .busy)
        }
    }

    @Test func aRevokedGranteesRequestIsDroppedUnopened() async throws {
        let grantID = Bytes16.random()
        try await HostFixture.with(runtime: (try ScriptedEngine.url("ok"), ["scripted"]), sibling: false,
                                   prepare: { _ = try grantee($0, models: ["scripted"], id: grantID) }) { f in
            let (_, ok) = await f.guest.ask(request("scripted", inline: true), to: f.host)
            #expect(ok.done != nil)
            let store = try f.files.openStore()
            try store.revokeGrant(grantID)
            store.close()
            try await eventually("the agent re-read the grants") {
                f.agent.state.withLock { $0.membership.grants[f.guest.identity.signingKey.publicKey]?.first?.revoked == true }
            }
            // No grant in force: the envelope never reaches the opener (nor the replay state);
            // the grantee learns of the revoke from the notice mailed to it.
            let opened = f.agent.courier.stats.opened
            let (outcome, stream) = await f.guest.courier.sendRequest(request("scripted", inline: true), to: f.host)
            #expect(outcome == .sent)
            try await eventually("dropped unopened") { f.agent.courier.stats.droppedUnknownSender == 1 }
            #expect(f.agent.courier.stats.opened == opened)
            stream.cancel()
        }
    }
}
