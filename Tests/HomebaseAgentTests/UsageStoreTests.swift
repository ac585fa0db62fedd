import Foundation
@testable import HomebaseAgent
import Sealing
import Signing
import Testing

/// Usage rows in the real SQLite store (#21), and the audit log's rotation on a real file.
@Suite struct UsageStoreTests {
    @Test func usageAddsUpByDeviceModelAndDay() throws {
        let store = try HostFiles(dataDir: try temporaryDirectory("usage")).openStore()
        let friend = try DeviceIdentity.generate(name: "f", now: 1).signingKey.publicKey
        let me = try DeviceIdentity.generate(name: "me", now: 1).signingKey.publicKey
        try store.recordUsage(requester: friend, own: false, model: "m", day: "2026-11-30", tokensIn: 10, tokensOut: 5)
        try store.recordUsage(requester: friend, own: false, model: "m", day: "2026-12-02", tokensIn: 7, tokensOut: 3)
        try store.recordUsage(requester: friend, own: false, model: "m", day: "2026-12-02", tokensIn: 1, tokensOut: 1)
        try store.recordUsage(requester: me, own: true, model: "m", day: "2026-12-02", tokensIn: 100, tokensOut: 100)
        #expect(try store.tokensUsed(by: friend, since: "2026-12-02") == 12)
        #expect(try store.tokensUsed(by: friend, since: "2026-12-01") == 12)
        #expect(try store.tokensUsed(by: friend, since: "2026-11-01") == 27)
        let rows = try store.usage().filter { $0.requester == friend.hex }
        #expect(rows.map(\.requests) == [1, 2])
        #expect(rows.last == UsageRow(requester: friend.hex, own: false, model: "m", day: "2026-12-02", requests: 2, tokensIn: 8, tokensOut: 4))
    }

    @Test func grantsKeepTheirBudget() throws {
        let store = try HostFiles(dataDir: try temporaryDirectory("usage")).openStore()
        let friend = try DeviceIdentity.generate(name: "f", now: 1)
        try store.saveGrant(GrantRecord(grantID: .random(), grantee: friend.record, models: ["m"], createdMs: 1,
                                        budget: TokenBudget(tokens: 300, period: .month)))
        #expect(try store.grants().first?.budget == TokenBudget(tokens: 300, period: .month))
    }

    @Test func theAuditLogRotatesAtItsCap() throws {
        let dir = try temporaryDirectory("audit")
        let log = AuditLog(path: dir + "/audit.jsonl", maxBytes: 1024)
        let e = AuditLog.Entry(time: 1, requester: "grant:00", device: "ab", model: "m", tokensIn: 1, tokensOut: 2,
                               outcome: "done", durationMs: 3, runtime: nil)
        for _ in 0..<40 { log.write(e) }
        let live = try String(contentsOfFile: dir + "/audit.jsonl", encoding: .utf8)
        let old = try String(contentsOfFile: dir + "/audit.jsonl.1", encoding: .utf8)
        #expect(live.utf8.count <= 1024 && old.utf8.count <= 1024)
        let line = try #require(live.split(separator: "\n").first)
        #expect(try JSONDecoder().decode(AuditLog.Entry.self, from: Data(line.utf8)) == e)
        let attributes = try FileManager.default.attributesOfItem(atPath: dir + "/audit.jsonl")
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }
}
