import Basics
import Courier
import Foundation
@testable import GuestAgent
import PeerLink
import Sealing
import Signing
import Testing
import TestSupport
import Wire

/// A sibling's mail that waits in the same backlog as the roster that introduces the sibling is
/// held until that roster is applied, then opened: not dropped as from a stranger.
@Suite struct MailBacklogTests {
    typealias Fixture = GuestMailTests.Fixture

    /// A Courier for `identity` on `relay`, knowing `peers` (it only sends here).
    func sender(_ identity: DeviceIdentity, _ relay: LiveRelay, knows peers: [DeviceRecord]) throws -> Courier {
        final class Known: DeviceDirectory {
            let records: [DeviceRecord]
            init(_ r: [DeviceRecord]) { records = r }
            func record(for key: PublicKey) -> DeviceRecord? { records.first { $0.signingKey == key } }
        }
        return Courier(link: try PeerLink(configuration: .fast(relay.url), identity: identity.signingKey),
                       identity: identity, directory: Known(peers))
    }

    @Test func aNewSiblingsMailInTheRostersBacklogIsOpenedAfterIt() async throws {
        let relay = try LiveRelay()
        defer { relay.stop() }
        let f = try Fixture()
        let sibling = try DeviceIdentity.generate(name: "desktop", now: 1)
        // The new sibling's choice is stored first, then the roster that lists it.
        let desk = try sender(sibling, relay, knows: [f.me.record])
        desk.start()
        defer { desk.stop() }
        try await eventually("sibling connected") { desk.link.state.isConnected }
        let choice = AppMessage.ModelChoice(modelID: "ollama:from-desk", vision: false, sequence: 1,
                                            originDevice: sibling.signingKey.publicKey)
        #expect(try await desk.sendMail(.modelChoice(choice), to: f.me.record, ttl: .seconds(600)) == .stored)
        let host = try sender(f.host, relay, knows: [f.me.record])
        host.start()
        defer { host.stop() }
        try await eventually("host connected") { host.link.state.isConnected }
        var roster = AppMessage.Roster(accountKey: f.account.publicKey, version: 3,
                                       deviceRecords: [f.host.record.encoded, f.me.record.encoded, sibling.record.encoded])
        roster.signature = Bytes64(unchecked: f.account.sign(try roster.signedBytes()))
        #expect(try await host.sendMail(.roster(roster), to: f.me.record, ttl: .seconds(600)) == .stored)
        // The laptop reads its backlog: it knows only the Homebase (bootstrap) when it starts.
        var options = GuestLink.Options()
        options.backlogWait = .seconds(20)
        let link = try GuestLink.make(setting: .init(url: relay.url), role: .account, identity: f.me,
                                      directory: f.mail.directory, peers: JoinedDirectory(account: f.mail.directory, joined: []),
                                      mail: f.mail, options: options, log: f.context.log)
        link.start()
        defer { link.stop() }
        try await eventually("the roster applied") { f.mail.directory.inRoster(sibling.signingKey.publicKey) }
        await link.waitForBacklog()
        try await eventually("the sibling's choice applied") { try f.context.settings.get(.ollamaModel) == "from-desk" }
        await f.context.shutdown()
    }

    @Test func aBacklogWithoutARosterAsksTheHomebaseForANewerOne() async throws {
        let relay = try LiveRelay()
        defer { relay.stop() }
        let f = try Fixture()
        guard case .stored = f.mail.handle(.roster(try f.roster(2)), from: f.host.record, heldMs: 0) else {
            throw SetupError("the roster was not stored")
        }
        // The Homebase's side (a bare Courier standing in for it) hears what the laptop asks.
        let host = try sender(f.host, relay, knows: [f.me.record])
        host.start()
        defer { host.stop() }
        try await eventually("host connected") { host.link.state.isConnected }
        let hex = hexString(f.host.record.encoded)
        let link = try GuestLink.make(setting: .init(url: relay.url, homebase: hex), role: .account, identity: f.me,
                                      directory: f.mail.directory, peers: JoinedDirectory(account: f.mail.directory, joined: []),
                                      mail: f.mail, options: GuestLink.Options(), log: f.context.log)
        link.start()
        defer { link.stop() }
        // A guard, not a timing: a laptop that never asks ends the wait (its deliveries end).
        let guardTask = Task { try? await Task.sleep(for: .seconds(20)); host.stop() }
        defer { guardTask.cancel() }
        var it = host.deliveries.makeAsyncIterator()
        let asked = await it.next()
        guard case .rosterAsk(let held)? = asked?.message else {
            Issue.record("the laptop did not ask for a roster: \(String(describing: asked?.message))"); return
        }
        #expect(held == 2)
        await f.context.shutdown()
    }
}
