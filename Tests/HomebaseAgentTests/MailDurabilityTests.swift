import Courier
import Foundation
import PeerLink
@testable import RelayServer
import Sealing
import Signing
import Storage
import Synchronization
import Testing
import Wire
@testable import HomebaseAgent
import Basics
@testable import homebase

/// Trust mail (rosters above all) is not lost to a full mailbox or to a laptop that was away
/// longer than its replay window: it is retried until the relay stores it, and the current
/// roster is sealed again with every advert pulse.
@Suite(.serialized) struct MailDurabilityTests {
    /// Log lines, for waiting on what the agent did (never asserted on timing).
    final class Lines: Sendable {
        let lines = Mutex<[String]>([])
        func add(_ l: String) { lines.withLock { $0.append(l) } }
        func count(_ word: String) -> Int { lines.withLock { $0.filter { $0.contains(word) }.count } }
    }

    /// The next roster delivered whose version is `version`, acking everything read.
    func roster(_ version: UInt64, from it: inout AsyncStream<Delivery>.Iterator) async throws -> AppMessage.Roster {
        while let d = await it.next() {
            d.ack()
            if case .roster(let r) = d.message, r.version == version { return r }
        }
        throw TestSetupError("deliveries ended before roster \(version)")
    }

    /// Waits at most `seconds` for `body` (the test fails with `what` when it does not finish).
    func within<T: Sendable>(_ seconds: Int, _ what: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask { try? await Task.sleep(for: .seconds(seconds)); return nil }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw TestSetupError("never happened: \(what)") }
            return value
        }
    }

    /// Runs `body`, then stops the fixture (also when it throws).
    func run(_ f: HostFixture, _ body: () async throws -> Void) async throws {
        do { try await body() } catch {
            await f.stop()
            throw error
        }
        await f.stop()
    }

    @Test func aRosterAnsweredMailboxFullIsRetriedUntilStored() async throws {
        let lines = Lines()
        let f = try await HostFixture(runtime: nil, relayConfig: { $0.mailboxMaxFrames = 4 }, configure: { c in
            c.log = { lines.add($0) }
            c.mailRetry = Backoff(initial: .milliseconds(20), maximum: .milliseconds(100), jitter: 0)
        })
        try await run(f) {
            let account = try f.files.loadAccountKey()
            let phone = try DeviceIdentity.generate(name: "phone", now: 1)
            let store = try f.files.openStore()
            _ = try store.addDevice(phone.record, accountKey: account, nowMs: nowMs())
            // A stranger who knows the laptop's key fills its mailbox while it sleeps.
            let stranger = try await strangerFillingMailbox(of: f.guest.identity.signingKey.publicKey, at: f.relay.url)
            defer { stranger.stop() }
            // The device is removed; the Homebase mails the roster that says so into the full mailbox.
            let removed = try store.removeDevice(phone.signingKey.publicKey, host: f.host.signingKey, accountKey: account)
            store.close()
            try f.agent.reload()
            f.agent.start()
            try await eventually("the roster answered mailbox-full") { lines.count("full") >= 1 }
            // The laptop wakes and drains the stranger's frames: the roster it gets is the one without the phone.
            try await f.guest.start()
            let courier = f.guest.courier
            let got = try await within(20, "roster \(removed.version) after the drain") {
                var it = courier.deliveries.makeAsyncIterator()
                return try await roster(removed.version, from: &it)
            }
            #expect(got.verifies())
            #expect(try !got.deviceRecords.map { try DeviceRecord(encoded: $0).signingKey }.contains(phone.signingKey.publicKey))
        }
    }

    @Test func aLaptopAwayLongerThanItsReplayWindowStillGetsTheRoster() async throws {
        let window = Courier.Configuration().replayGuard.window
        let behind = Atomic<UInt64>(window + 86_400_000)  // the Homebase's clock: 8 days ago, for now
        let f = try await HostFixture(runtime: nil, configure: { c in
            c.advertPulse = .milliseconds(50)
            c.courier.now = { UInt64(wallClockMs()) - behind.load(ordering: .relaxed) }
        })
        try await run(f) {
            let account = try f.files.loadAccountKey()
            let phone = try DeviceIdentity.generate(name: "phone", now: 1)
            let store = try f.files.openStore()
            _ = try store.addDevice(phone.record, accountKey: account, nowMs: nowMs())
            let removed = try store.removeDevice(phone.signingKey.publicKey, host: f.host.signingKey, accountKey: account)
            store.close()
            try f.agent.reload()
            f.agent.start()
            // The roster and the advert that removed the phone wait in the mailbox, sealed "8 days ago".
            let mailbox = try Database(path: f.relay.dataDir + "/mailbox.sqlite3", schema: MailboxSchema.schema)
            defer { mailbox.close() }
            let me = f.guest.identity.signingKey.publicKey.bytes
            try await eventually("roster and advert stored for the laptop") {
                (try mailbox.query("SELECT count(*) FROM mail WHERE recipient = ?", me).first?.get(0, as: Int64.self) ?? 0) >= 2
            }
            behind.store(0, ordering: .relaxed)  // eight days later: the laptop comes back
            try await f.guest.start()
            let courier = f.guest.courier
            let got = try await within(20, "an openable roster \(removed.version)") {
                var it = courier.deliveries.makeAsyncIterator()
                return try await roster(removed.version, from: &it)
            }
            #expect(got.verifies())
        }
    }

    @Test func aSiblingThatAsksGetsTheRosterWhenItHoldsAnOlderOne() async throws {
        try await HostFixture.with(runtime: nil) { f in
            let courier = f.guest.courier, host = f.host
            let version = try #require(try f.files.openStore().roster()).version
            let again = try await within(20, "the roster again after roster-ask") {
                var it = courier.deliveries.makeAsyncIterator()
                _ = try await roster(version, from: &it)  // the one sent on connect
                guard await courier.send(.rosterAsk(version: version - 1), to: host) == .sent else {
                    throw TestSetupError("roster-ask not sent")
                }
                return try await roster(version, from: &it)
            }
            #expect(again.verifies())
        }
    }

    @Test func theRetryBackoffIsSetAndCheckedLikeTheOtherDurations() throws {
        var s = homebase.Settings()
        s.values = ["relay": "ws://127.0.0.1:1", "mail-retry": "250ms", "mail-retry-max": "2s"]
        let c = try s.configuration()
        #expect(c.mailRetry.initial == .milliseconds(250) && c.mailRetry.maximum == .seconds(2))
        s.values["mail-retry-max"] = "100ms"
        #expect(throws: HomebaseError.self) { try s.configuration() }
    }

    @Test func noMailOutlivesTheReceiversReplayWindow() throws {
        let window = Duration.milliseconds(Int64(Courier.Configuration().replayGuard.window))
        let c = try HomebaseAgent.Configuration(relayURL: "ws://127.0.0.1:1")
        #expect(c.rosterTTL <= window)
        #expect(c.advertTTL <= window)
    }
}
