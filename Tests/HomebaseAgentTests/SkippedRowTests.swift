import Foundation
import Sealing
import Signing
import Testing
import Wire
@testable import HomebaseAgent
@testable import homebase

// Issue 15: rows an older version stored that today's decode rules refuse (a small-order HPKE
// key, control characters in a name) are skipped and reported, never fatal, never deleted.
@Suite struct SkippedRowTests {
    /// A validly signed record with an all-zero HPKE key and a bell in its name.
    func oldRecord() -> (key: [UInt8], encoded: [UInt8]) {
        let key = SigningKey.generate()
        var b: [UInt8] = [1] + key.publicKey.bytes + [UInt8](repeating: 0, count: 32) + [0, 0, 0, 0, 0, 0, 0, 1]
        b += [7] + Array("lap\u{07}top".utf8)
        return (key.publicKey.bytes, b + key.sign(Array("homebase device record v1".utf8) + [0] + b))
    }

    @Test func rowsAnOlderVersionStoredAreSkippedReportedAndKept() async throws {
        let files = HostFiles(dataDir: try temporaryDirectory("host") + "/host")
        _ = try files.initialize(name: "workstation", nowMs: nowMs())
        let phone = try DeviceIdentity.generate(name: "phone", now: 1)
        let old = oldRecord(), grantID = Bytes16.random(), joinID = Bytes16.random()
        // Written straight into the real files, as an older version would have.
        let store = try files.openStore()
        try store.addDevice(phone.record, accountKey: try files.loadAccountKey(), nowMs: nowMs())
        _ = try store.db.execute("INSERT INTO devices(signing_key, record, added_ms) VALUES (?, ?, ?)", old.key, old.encoded, nowMs())
        _ = try store.db.execute("""
            INSERT INTO grants(grant_id, grantee_key, grantee_record, models, rate_per_minute, expires_ms, created_ms)
            VALUES (?, ?, ?, '["m"]', 0, 0, ?)
            """, grantID.bytes, old.key, old.encoded, nowMs())
        store.close()
        let sharing = try files.openSharing()
        _ = try sharing.db.execute("""
            INSERT INTO joins(grant_id, invite_id, joiner_key, joiner_record, account_name, state, created_ms)
            VALUES (?, ?, ?, ?, 'old', 'revoked', ?)
            """, joinID.bytes, Bytes16.random().bytes, old.key, old.encoded, nowMs())
        sharing.close()

        let lines = MailDurabilityTests.Lines()
        var c = try HomebaseAgent.Configuration(relayURL: "ws://127.0.0.1:\(try freePort())")
        c.log = { lines.add($0) }
        let agent = try HomebaseAgent(configuration: c, files: files)
        agent.start()
        agent.tick()
        await agent.stop()
        #expect(try agent.store.devices().map(\.record.signingKey).contains(phone.signingKey.publicKey))
        #expect(try agent.sharing.joins().isEmpty)
        #expect(lines.count("skipped devices row \(hex(old.key))") == 1)
        #expect(lines.count("skipped grants row \(hex(grantID.bytes))") == 1)
        #expect(lines.count("skipped joins row \(hex(joinID.bytes))") == 1)

        let status = try HostStatus.read(files)
        #expect(status.siblings.map(\.key) == [phone.signingKey.publicKey.hex])
        #expect(status.skippedRows.map(\.table).sorted() == ["devices", "grants", "joins"])
        let text = StatusText.render(status, nowMs: nowMs())
        #expect(text.contains("skipped rows: 3"))
        #expect(text.contains("devices row \(hex(old.key))") && text.contains("grants row \(hex(grantID.bytes))"))
        // Left in place.
        let again = try files.openStore()
        defer { again.close() }
        #expect(try again.db.query("SELECT count(*) FROM devices").first?.get(0, as: Int64.self) == 3)
        #expect(try again.db.query("SELECT count(*) FROM grants").first?.get(0, as: Int64.self) == 1)
    }
}
