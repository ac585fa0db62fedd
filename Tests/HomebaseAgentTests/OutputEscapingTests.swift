import Foundation
import Sealing
import Signing
import Testing
@testable import HomebaseAgent

/// Names from other devices reach the log and `grants list`: stored before names were checked,
/// or in any line the agent writes, a newline or an escape sequence is shown escaped, never
/// written raw (issue 15, hole 11).
@Suite(.serialized) struct OutputEscapingTests {
    @Test func theLogEscapesControlCharacters() async throws {
        let lines = LogLines()
        try await HostFixture.with(runtime: nil, configure: { $0.log = { lines.add($0) } }) { f in
            f.agent.log("join from 0011… (\"ana\nhomebase: join from x granted\u{1b}[2J\")")
            let written = lines.each.filter { $0.contains("join from 0011") }
            #expect(written.count == 1 && !written[0].contains("\n") && !written[0].contains("\u{1b}"), "\(written)")
            #expect(written.first?.contains("\\u{a}homebase: join from x granted\\u{1b}[2J") == true, "\(written)")
        }
    }

    @Test func grantsListEscapesAStoredAccountName() throws {
        let dir = try temporaryDirectory("escape")
        let files = HostFiles(dataDir: dir)
        _ = try files.initialize(name: "tower", nowMs: 1)
        let host = try files.loadIdentity()
        let sharing = try files.openSharing()
        let now: Int64 = 1_750_000_000_000
        let secret = randomBytes(count: 32)
        try sharing.createInvite(StoredInvite(inviteID: .random(), secret: secret, models: ["tiny"], ratePerMinute: 7,
                                              expiresMs: Int64.max, maxUses: 1, uses: 0, approval: true, createdMs: now))
        let friend = try DeviceIdentity.generate(name: "friend", now: 1)
        let proof = InviteProof.make(secret: secret, host: host.signingKey.publicKey, joinerRecord: friend.record.encoded)
        _ = try sharing.admitJoin(proof: proof, joiner: friend.record, accountName: "ana\n\u{1b}[31mowner",
                                  host: host.signingKey.publicKey, nowMs: now)
        sharing.close()
        let out = Pipe()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: ProcessTests.binary)
        p.arguments = ["--data-dir", dir, "grants", "list"]
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        #expect(text.split(separator: "\n").count == 1 && !text.contains("\u{1b}"), "\(text.debugDescription)")
        #expect(text.contains("account \"ana\\u{a}\\u{1b}[31mowner\""), "\(text.debugDescription)")
    }
}
