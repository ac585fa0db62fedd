import Foundation
import Sealing
import Testing
@testable import HomebaseAgent

/// `homebase share` and `homebase grants list` as the executable (issue 15, hole 6b): the invite
/// and the grant each say when they end, `--grant-expires` sets the grant's end, and a grant past
/// it is listed as expired.
@Suite(.serialized) struct ShareTermsProcessTests {
    /// Runs `homebase ARGS` to its end: (status, stdout, stderr).
    func run(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        let out = Pipe(), err = Pipe()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: ProcessTests.binary)
        p.arguments = args
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }

    func host() throws -> String {
        let dir = try temporaryDirectory("share")
        #expect(try run(["--data-dir", dir, "init", "--name", "tower"]).status == 0)
        return dir
    }

    func share(_ dir: String, _ args: [String]) throws -> (status: Int32, out: String, err: String) {
        try run(["--data-dir", dir, "share", "--relay", "ws://127.0.0.1:9", "--models", "tiny"] + args)
    }

    @Test func theGrantsExpiryIsSetAndSaid() throws {
        let dir = try host()
        let byDefault = try share(dir, ["--expires", "1h"])
        #expect(byDefault.status == 0, "\(byDefault.err)")
        #expect(byDefault.err.contains("joins accepted until") && byDefault.err.contains("the grant expires"), "\(byDefault.err)")

        let longer = try share(dir, ["--expires", "1h", "--grant-expires", "30d"])
        #expect(longer.status == 0, "\(longer.err)")
        let never = try share(dir, ["--grant-expires", "never"])
        #expect(never.status == 0 && never.err.contains("the grant never expires"), "\(never.err)")
        #expect(!never.err.contains("the grant expires"), "\(never.err)")

        let sharing = try HostFiles(dataDir: dir).openSharing()
        defer { sharing.close() }
        let invites = try sharing.invites()
        #expect(invites.count == 3)
        #expect(invites[0].grantExpiresMs == invites[0].expiresMs)
        #expect(invites[1].grantEnd - invites[1].expiresMs > 29 * 86_400_000)
        #expect(invites[2].grantExpiresMs == 0)
    }

    @Test func aBadGrantExpiryIsAUsageError() throws {
        let dir = try host()
        let early = try share(dir, ["--expires", "1h", "--grant-expires", "30m"])
        #expect(early.status == 2 && early.err.contains("--grant-expires"), "\(early.err)")
        let bad = try share(dir, ["--grant-expires", "soon"])
        #expect(bad.status == 2 && bad.err.contains("--grant-expires"), "\(bad.err)")
        #expect(try run(["--data-dir", dir, "share", "--help"]).out.contains("--grant-expires"))
    }

    /// `share --tools` (#23): said when shared, stored in the invite, shown by `grants list`.
    @Test func shareToolsIsSaidStoredAndListed() throws {
        let dir = try host()
        let with = try share(dir, ["--tools"])
        #expect(with.status == 0 && with.err.contains("; tools allowed"), "\(with.err)")
        let without = try share(dir, [])
        #expect(without.status == 0 && without.err.contains("no tools (share --tools allows them)"), "\(without.err)")
        #expect(try run(["--data-dir", dir, "share", "--help"]).out.contains("--tools"))
        let sharing = try HostFiles(dataDir: dir).openSharing()
        #expect(try sharing.invites().map(\.tools) == [true, false])
        sharing.close()
        let store = try HostFiles(dataDir: dir).openStore()
        let friend = try DeviceIdentity.generate(name: "friend", now: 1), other = try DeviceIdentity.generate(name: "other", now: 1)
        try store.saveGrant(GrantRecord(grantID: .random(), grantee: friend.record, models: ["tiny"], createdMs: nowMs(), tools: true))
        try store.saveGrant(GrantRecord(grantID: .random(), grantee: other.record, models: ["tiny"], createdMs: nowMs() + 1))
        store.close()
        let list = try run(["--data-dir", dir, "grants", "list"]).out.split(separator: "\n")
        #expect(list.count == 2)
        #expect(list.first { $0.contains(friend.signingKey.publicKey.hex) }?.contains("  tools") == true, "\(list)")
        #expect(list.first { $0.contains(other.signingKey.publicKey.hex) }?.contains("  no tools") == true, "\(list)")
    }

    @Test func aGrantPastItsExpiryIsListedAsExpired() throws {
        let dir = try host()
        let store = try HostFiles(dataDir: dir).openStore()
        let friend = try DeviceIdentity.generate(name: "friend", now: 1)
        try store.saveGrant(GrantRecord(grantID: .random(), grantee: friend.record, models: ["tiny"], expiresMs: nowMs() - 1,
                                        createdMs: nowMs() - 10))
        store.close()
        let list = try run(["--data-dir", dir, "grants", "list"])
        #expect(list.status == 0 && list.out.contains("  expired  "), "\(list.out)")
    }
}
