import Foundation
@testable import HomebaseAgent
@testable import homebase
import Sealing
import Signing
import Testing
import Wire

/// A Homebase that joined an account (no account key) takes rosters by mail from a sibling
/// through a real relay: a newer one signed by the account key is stored and served from, an
/// older, a foreign or a tampered one is refused and logged, and a roster without it says it
/// was removed and empties its siblings. It never mails a roster of its own.
@Suite struct JoinedRosterTests {
    /// A roster of `records` at `version`, signed by `key` (naming `key` as the account).
    static func roster(_ version: UInt64, _ records: [DeviceRecord], signedBy key: SigningKey) throws -> AppMessage.Roster {
        var r = AppMessage.Roster(accountKey: key.publicKey, version: version,
                                  deviceRecords: records.map(\.encoded))
        r.signature = Bytes64(unchecked: key.sign(try r.signedBytes()))
        return r
    }

    func outcome(_ f: HostFixture, _ name: String) -> Int { f.agent.state.withLock { $0.serving.outcomes[name] ?? 0 } }

    @Test func onlyANewerRosterSignedByTheAccountKeyIsTakenAndRemovalIsReported() async throws {
        let lines = LogLines()
        try await HostFixture.with(runtime: nil, joined: true, configure: { $0.log = { lines.add($0) } }) { f in
            #expect(!f.agent.holdsAccountKey)
            let phone = try DeviceIdentity.generate(name: "phone", now: 1).record
            let send = { (r: AppMessage.Roster) in
                _ = try await f.guest.courier.sendMail(.roster(r), to: f.host, ttl: .seconds(60))
            }
            // Roster 2 (host + laptop) is stored: 3 adds the phone, signed by the account key.
            try await send(try Self.roster(3, [f.host, f.guest.identity.record, phone], signedBy: f.accountKey))
            try await eventually("roster 3 accepted") { outcome(f, "roster-accepted") == 1 }
            #expect(try f.agent.store.roster()?.version == 3)
            #expect(f.agent.state.withLock { $0.membership.siblings[phone.signingKey] } != nil)

            // Replayed older, another at the same version, foreign (another key names itself),
            // tampered (one signature bit).
            try await send(try Self.roster(2, [f.host, f.guest.identity.record], signedBy: f.accountKey))
            try await send(try Self.roster(3, [f.host, f.guest.identity.record], signedBy: f.accountKey))
            try await send(try Self.roster(9, [f.host, f.guest.identity.record], signedBy: SigningKey.generate()))
            var tampered = try Self.roster(9, [f.host, f.guest.identity.record], signedBy: f.accountKey)
            var sig = tampered.signature.bytes
            sig[0] ^= 1
            tampered.signature = Bytes64(unchecked: sig)
            try await send(tampered)
            try await eventually("four refusals") { outcome(f, "roster-refused") == 4 }
            #expect(try f.agent.store.roster()?.version == 3)
            #expect(lines.contains("refused roster 2") && lines.contains("refused roster 3"), "\(lines.all)")
            #expect(lines.all.components(separatedBy: "not newer than 3").count == 3, "\(lines.all)")
            #expect(lines.contains("names another account key"), "\(lines.all)")
            #expect(lines.contains("signature does not verify"), "\(lines.all)")

            // Removal: roster 4 without this Homebase. It says so and serves no sibling.
            try await send(try Self.roster(4, [f.guest.identity.record, phone], signedBy: f.accountKey))
            try await eventually("roster 4 accepted") { outcome(f, "roster-accepted") == 2 }
            #expect(lines.contains("removed from the account"), "\(lines.all)")
            #expect(f.agent.state.withLock { $0.membership.siblings.isEmpty && !$0.membership.listed })
            let status = try HostStatus.read(f.files)
            #expect(status.account?.listed == false && status.account?.holdsKey == false)
            #expect(StatusText.render(status, nowMs: nowMs()).contains("REMOVED from the account"))
            #expect(!lines.contains("roster 3 to"), "a joined Homebase mailed a roster: \(lines.all)")
        }
    }

    @Test func changesOnAJoinedHomebaseNameTheFirstOne() async throws {
        let f = try await HostFixture(runtime: nil, joined: true)
        let store = try f.files.openStore()
        #expect(throws: HomebaseError.notAccountHolder(head: "\"workstation\" (\(f.host.signingKey.hex.prefix(16))…)",
                                                      account: f.accountKey.publicKey.hex)) {
            _ = try f.files.accountKeyForChanges(store)
        }
        store.close()
        await f.stop()
        let message = HomebaseError.notAccountHolder(head: nil, account: "ab").description
        #expect(message.contains("the Homebase where you ran `homebase init`"))
    }
}

/// Log lines, collected from the agent's threads.
final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func add(_ line: String) { lock.withLock { lines.append(line) } }
    var all: String { lock.withLock { lines.joined(separator: "\n") } }
    /// Each line as the log closure received it.
    var each: [String] { lock.withLock { lines } }
    func contains(_ text: String) -> Bool { all.contains(text) }
}
