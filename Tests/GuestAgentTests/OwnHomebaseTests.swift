import Foundation
@testable import GuestAgent
import Routing
import Sealing
import Signing
import Testing
import Wire

/// Two Homebases in one roster (a second workstation joined): the own one stays put while it is
/// usable, and the other takes over when it is not.
@Suite struct OwnHomebaseTests {
    let paths: GuestPaths
    let context: GuestContext
    let account = SigningKey.generate()
    let first: DeviceIdentity, second: DeviceIdentity, me: DeviceIdentity
    var mail: GuestMail

    init() throws {
        (paths, context) = try accountContext(account)
        first = try DeviceIdentity.generate(name: "ws-one", now: 1)
        second = try DeviceIdentity.generate(name: "ws-two", now: 1)
        me = try DeviceIdentity.generate(name: "laptop", now: 1)
        mail = GuestMail(paths: paths, directory: GuestDirectory(me: me.signingKey.publicKey, bootstrap: first.record, roster: []),
                         database: context.routingDatabase)
    }

    func roster(_ version: UInt64, _ devices: [DeviceIdentity]) throws -> AppMessage.Roster {
        var r = AppMessage.Roster(accountKey: account.publicKey, version: version,
                                  deviceRecords: devices.map(\.record.encoded))
        r.signature = Bytes64(unchecked: account.sign(try r.signedBytes()))
        return r
    }

    func advert(_ host: DeviceIdentity, _ sequence: UInt64, models: Int = 1) throws -> AppMessage.Advert {
        let model = AppMessage.ModelInfo(tag: "tiny", family: "llama", parameterSize: "1M", quantization: "F32",
                                           contextLength: 2048, capabilities: .completion)
        var a = AppMessage.Advert(hostKey: host.signingKey.publicKey, sequence: sequence,
                                  timestampMs: 1, models: Array(repeating: model, count: models))
        a.signature = Bytes64(unchecked: host.signingKey.sign(try a.signedBytes()))
        return a
    }

    var own: PublicKey? { HomebaseKeyFile(path: paths.homebaseKey).read() }

    func deliver(_ m: AppMessage, from d: DeviceIdentity) {
        if case .stored = mail.handle(m, from: d.record, heldMs: 0) { return }
        Issue.record("\(m) from \(d.record.name) was not stored")
    }

    /// Both Homebases and this laptop in the roster, an own-advert window of an hour.
    func withBothInTheRoster() throws -> Self {
        var t = self
        t.mail.freshness.ownAdvertMaxAgeMs = 3_600_000
        t.deliver(.roster(try t.roster(2, [t.first, t.second, t.me])), from: t.first)
        return t
    }

    @Test func aLiveOwnHomebaseStaysAndASilentOneGivesWay() async throws {
        var t = try withBothInTheRoster()
        t.deliver(.advert(try t.advert(t.first, 1)), from: t.first)
        #expect(t.own == t.first.signingKey.publicKey)
        t.deliver(.advert(try t.advert(t.second, 1)), from: t.second)
        #expect(t.own == t.first.signingKey.publicKey, "a second live Homebase took over from a fresh own one")
        t.mail.freshness.ownAdvertMaxAgeMs = 0  // every advert already counts as silent
        t.deliver(.advert(try t.advert(t.second, 2)), from: t.second)
        #expect(t.own == t.second.signingKey.publicKey, "a silent own Homebase kept its place")
        await t.context.shutdown()
    }

    /// The own Homebase's freshness is the router's judgement, clock-step tolerance included: an
    /// advert received an hour "in the future" (this clock moved back since) is stale for the
    /// router, so it may not keep its place either (it did, counted as negative age, before).
    @Test func anOwnHomebaseWhoseAdvertLiesInTheFutureGivesWay() async throws {
        let t = try withBothInTheRoster()
        struct Ahead: WallClock { func nowMs() -> Int64 { SystemWallClock().nowMs() + 3_600_000 } }
        try OwnAdvertStore(database: t.context.routingDatabase, accountHostKey: t.first.signingKey.publicKey, clock: Ahead())
            .accept(try t.advert(t.first, 1), heldMs: 0)
        try HomebaseKeyFile(path: t.paths.homebaseKey).write(t.first.signingKey.publicKey)
        t.deliver(.advert(try t.advert(t.second, 1)), from: t.second)
        #expect(t.own == t.second.signingKey.publicKey, "an own Homebase whose advert the router counts stale kept its place")
        await t.context.shutdown()
    }

    @Test func anOwnHomebaseWithNoModelOrOutOfTheRosterGivesWay() async throws {
        let t = try withBothInTheRoster()
        t.deliver(.advert(try t.advert(t.first, 1, models: 0)), from: t.first)
        t.deliver(.advert(try t.advert(t.second, 1, models: 0)), from: t.second)
        #expect(t.own == t.first.signingKey.publicKey, "neither serves a model: the first stays")
        t.deliver(.advert(try t.advert(t.second, 2)), from: t.second)
        #expect(t.own == t.second.signingKey.publicKey, "an own Homebase with no model kept its place")
        t.deliver(.roster(try t.roster(3, [t.first, t.me])), from: t.first)
        t.deliver(.advert(try t.advert(t.first, 2)), from: t.first)
        #expect(t.own == t.first.signingKey.publicKey, "a Homebase removed from the roster stayed own")
        await t.context.shutdown()
    }
}
