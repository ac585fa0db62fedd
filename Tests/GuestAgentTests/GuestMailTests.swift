import Foundation
@testable import GuestAgent
import Routing
import Sealing
import Signing
import Testing
import Wire

/// The guest's trust in its account's mail: rosters only from the account key and only
/// forward; adverts only from a roster device, stored under that device's key.
@Suite struct GuestMailTests {
    struct Fixture {
        let paths: GuestPaths
        let mail: GuestMail
        let account = SigningKey.generate()
        let host: DeviceIdentity
        let me: DeviceIdentity
        let context: GuestContext

        init() throws {
            (paths, context) = try accountContext(account)
            host = try DeviceIdentity.generate(name: "host", now: 1)
            me = try DeviceIdentity.generate(name: "me", now: 1)
            let directory = GuestDirectory(me: me.signingKey.publicKey, bootstrap: host.record, roster: [])
            mail = GuestMail(paths: paths, directory: directory, database: context.routingDatabase)
        }

        func roster(_ version: UInt64, signer: SigningKey? = nil) throws -> AppMessage.Roster {
            var r = AppMessage.Roster(accountKey: account.publicKey, version: version,
                                      deviceRecords: [host.record.encoded, me.record.encoded])
            r.signature = Bytes64(unchecked: (signer ?? account).sign(try r.signedBytes()))
            return r
        }

        func advert(_ sequence: UInt64) throws -> AppMessage.Advert { try tinyAdvert(by: host, sequence) }
    }

    @Test func advertBeforeRosterIsRefusedThenAcceptedUnderTheHostKey() async throws {
        let f = try Fixture()
        guard case .refused = f.mail.handle(.advert(try f.advert(1)), from: f.host.record, heldMs: 0) else {
            Issue.record("an advert from a device not in a roster was accepted"); return
        }
        guard case .stored = f.mail.handle(.roster(try f.roster(2)), from: f.host.record, heldMs: 0) else {
            Issue.record("a signed roster was not stored"); return
        }
        #expect(f.mail.directory.inRoster(f.host.signingKey.publicKey))
        #expect(f.mail.directory.siblings.count == 1)  // ourselves excluded
        guard case .stored = f.mail.handle(.advert(try f.advert(5)), from: f.host.record, heldMs: 0) else {
            Issue.record("the roster's host advert was not stored"); return
        }
        #expect(HomebaseKeyFile(path: f.paths.homebaseKey).read() == f.host.signingKey.publicKey)
        let own = try AccountAdverts(account: f.context.account, database: f.context.routingDatabase).latestOwnAdvert()
        #expect(own?.advert.sequence == 5)
        guard case .refused = f.mail.handle(.advert(try f.advert(5)), from: f.host.record, heldMs: 0) else {
            Issue.record("a replayed advert sequence was accepted"); return
        }
        await f.context.shutdown()
    }

    /// A host's `away` (it went to sleep) is kept for the router's words, only when signed by
    /// the host that sent it; the newest per host.
    @Test func anAwayIsKeptOnlyWhenSignedByItsSender() async throws {
        let f = try Fixture()
        func away(_ sequence: UInt64, signer: SigningKey) -> AppMessage.Away {
            var a = AppMessage.Away(hostKey: f.host.signingKey.publicKey, advertSequence: sequence, sinceMs: 5)
            a.signature = Bytes64(unchecked: signer.sign(a.signedBytes()))
            return a
        }
        let file = AwayFile(path: f.paths.away)
        guard case .refused = f.mail.handle(.away(away(9, signer: f.me.signingKey)), from: f.host.record, heldMs: 0) else {
            Issue.record("a forged away was kept"); return
        }
        #expect(file.away(of: f.host.signingKey.publicKey) == nil)
        guard case .stored = f.mail.handle(.away(away(9, signer: f.host.signingKey)), from: f.host.record, heldMs: 0) else {
            Issue.record("the host's away was not kept"); return
        }
        _ = f.mail.handle(.away(away(11, signer: f.host.signingKey)), from: f.host.record, heldMs: 0)
        let mark = file.away(of: f.host.signingKey.publicKey)
        #expect(mark?.advertSequence == 11 && mark?.sinceMs == 5)
    }

    @Test func rosterMustBeSignedByTheAccountAndMoveForward() async throws {
        let f = try Fixture()
        guard case .refused = f.mail.handle(.roster(try f.roster(3, signer: SigningKey.generate())), from: f.host.record, heldMs: 0) else {
            Issue.record("a roster signed by another key was accepted"); return
        }
        #expect(!f.mail.directory.inRoster(f.host.signingKey.publicKey))
        guard case .stored = f.mail.handle(.roster(try f.roster(3)), from: f.host.record, heldMs: 0) else {
            Issue.record("a signed roster was not stored"); return
        }
        guard case .refused = f.mail.handle(.roster(try f.roster(3)), from: f.host.record, heldMs: 0) else {
            Issue.record("a roster of the same version was accepted again"); return
        }
        #expect(RosterFile(path: f.paths.roster).read(account: f.account.publicKey)?.version == 3)
        await f.context.shutdown()
    }

    @Test func rosterWithoutAnAccountKeyIsKeptAtTheRelay() async throws {
        let f = try Fixture()
        try FileManager.default.removeItem(atPath: f.paths.accountKey)
        guard case .kept = f.mail.handle(.roster(try f.roster(2)), from: f.host.record, heldMs: 0) else {
            Issue.record("a roster was handled with no account key on file"); return
        }
        await f.context.shutdown()
    }
}
