import Foundation
@testable import GuestAgent
import Routing
import Sealing
import Signing
import Testing
import Wire

/// Model choices between siblings: last writer by (sequence, origin) wins; a received choice is
/// applied, never re-sent; only roster devices speaking for themselves are heard. And a roster
/// that drops a device takes it out of the directory (revocation).
@Suite struct ModelChoiceTests {
    typealias Fixture = GuestMailTests.Fixture

    func stored(_ f: Fixture) throws {
        guard case .stored = f.mail.handle(.roster(try f.roster(2)), from: f.host.record, heldMs: 0) else {
            throw SetupError("the roster was not stored")
        }
    }

    func choice(_ id: String, _ seq: UInt64, from d: DeviceIdentity) -> AppMessage {
        .modelChoice(.init(modelID: id, vision: false, sequence: seq, originDevice: d.signingKey.publicKey))
    }

    @Test func newerChoiceAppliesOlderIsRefused() throws {
        let f = try Fixture()
        try stored(f)
        guard case .stored = f.mail.handle(choice("ollama:llama3.1:8b", 5, from: f.host), from: f.host.record, heldMs: 0) else {
            Issue.record("a roster device's choice was not applied"); return
        }
        #expect(try f.context.settings.get(.ollamaModel) == "llama3.1:8b")
        guard case .refused = f.mail.handle(choice("ollama:tiny", 4, from: f.host), from: f.host.record, heldMs: 0) else {
            Issue.record("an older choice was applied"); return
        }
        guard case .refused = f.mail.handle(choice("ollama:llama3.1:8b", 5, from: f.host), from: f.host.record, heldMs: 0) else {
            Issue.record("the same choice again was applied"); return
        }
        #expect(try f.context.settings.get(.ollamaModel) == "llama3.1:8b")
        guard case .stored = f.mail.handle(choice("source:external", 1, from: f.host), from: f.host.record, heldMs: 0) else {
            Issue.record("another kind's choice was not applied"); return
        }
        #expect(try f.context.settings.get(.modelSource) == "external")
    }

    @Test func aLocalChangeTakesTheNextSequenceAndWinsEverywhere() throws {
        let f = try Fixture()
        try stored(f)
        _ = f.mail.handle(choice("ollama:a", 7, from: f.host), from: f.host.record, heldMs: 0)
        let sync = ModelChoiceSync(database: f.context.routingDatabase)
        let mine = try sync.local(.ollama, "b", origin: f.me.signingKey.publicKey)
        #expect(mine.sequence == 8 && mine.modelID == "ollama:b")
        // The sibling's own older choice arriving late loses; a tie is broken by the origin key.
        guard case .refused = f.mail.handle(choice("ollama:a", 7, from: f.host), from: f.host.record, heldMs: 0) else {
            Issue.record("an older choice overrode a newer local one"); return
        }
        let tie = f.mail.handle(choice("ollama:c", 8, from: f.host), from: f.host.record, heldMs: 0)
        let hostWins = f.me.signingKey.publicKey.bytes.lexicographicallyPrecedes(f.host.signingKey.publicKey.bytes)
        if case .stored = tie { #expect(hostWins) } else { #expect(!hostWins) }
    }

    @Test func strangersAndRelayedChoicesAreRefusedAndBadValuesNeverStored() throws {
        let f = try Fixture()
        let stranger = try DeviceIdentity.generate(name: "stranger", now: 1)
        guard case .refused = f.mail.handle(choice("ollama:x", 1, from: f.host), from: f.host.record, heldMs: 0) else {
            Issue.record("a choice before any roster was applied"); return
        }
        try stored(f)
        guard case .refused = f.mail.handle(choice("ollama:x", 1, from: stranger), from: stranger.record, heldMs: 0) else {
            Issue.record("a stranger's choice was applied"); return
        }
        guard case .refused = f.mail.handle(choice("ollama:x", 1, from: stranger), from: f.host.record, heldMs: 0) else {
            Issue.record("a choice relayed for another origin was applied"); return
        }
        guard case .refused = f.mail.handle(choice("source:cloud", 9, from: f.host), from: f.host.record, heldMs: 0) else {
            Issue.record("an invalid model.source was applied"); return
        }
        guard case .refused = f.mail.handle(choice("weird", 9, from: f.host), from: f.host.record, heldMs: 0) else {
            Issue.record("an unknown kind was applied"); return
        }
        #expect(try f.context.settings.get(.modelSource) == nil)
        #expect(try f.context.settings.get(.ollamaModel) == nil)
    }

    @Test func aLocalModelChoiceIsHandedToTheModelHook() throws {
        let f = try Fixture()
        try stored(f)
        let seen = Seen()
        var mail = f.mail
        mail.localModelChoice = { seen.append($0) }
        guard case .stored = mail.handle(choice("local:owner/model-GGUF:Q4_K_M", 1, from: f.host), from: f.host.record, heldMs: 0) else {
            Issue.record("a local model choice was not accepted"); return
        }
        #expect(seen.values == ["owner/model-GGUF:Q4_K_M"])
    }

    @Test func aRosterWithoutADeviceRevokesItHere() throws {
        let f = try Fixture()
        let laptop = try DeviceIdentity.generate(name: "laptop", now: 1)
        var r3 = AppMessage.Roster(accountKey: f.account.publicKey, version: 3,
                                   deviceRecords: [f.host.record.encoded, f.me.record.encoded, laptop.record.encoded])
        r3.signature = Bytes64(unchecked: f.account.sign(try r3.signedBytes()))
        _ = f.mail.handle(.roster(r3), from: f.host.record, heldMs: 0)
        #expect(f.mail.directory.record(for: laptop.signingKey.publicKey) == laptop.record)
        var r4 = r3
        r4.version = 4
        r4.deviceRecords.removeLast()
        r4.signature = Bytes64(unchecked: f.account.sign(try r4.signedBytes()))
        guard case .stored = f.mail.handle(.roster(r4), from: f.host.record, heldMs: 0) else {
            Issue.record("the roster that removes a device was refused"); return
        }
        #expect(f.mail.directory.record(for: laptop.signingKey.publicKey) == nil)  // its frames are dropped unopened
        guard case .refused = f.mail.handle(choice("ollama:x", 1, from: laptop), from: laptop.record, heldMs: 0) else {
            Issue.record("a removed device's mail was applied"); return
        }
        // Replaying the older roster (it still listed the laptop) is refused: the laptop stays out.
        guard case .refused = f.mail.handle(.roster(r3), from: f.host.record, heldMs: 0) else {
            Issue.record("an older roster was accepted"); return
        }
        #expect(f.mail.directory.record(for: laptop.signingKey.publicKey) == nil)
    }
}

/// Collects values from a `@Sendable` closure.
final class Seen: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func append(_ s: String) { lock.withLock { items.append(s) } }
    var values: [String] { lock.withLock { items } }
}

extension ModelChoiceTests {
    @Test func aRosterWithoutThisDeviceStopsRoutingToTheHomebase() throws {
        let f = try GuestMailTests.Fixture()
        guard case .stored = f.mail.handle(.roster(try f.roster(2)), from: f.host.record, heldMs: 0),
              case .stored = f.mail.handle(.advert(try f.advert(1)), from: f.host.record, heldMs: 0) else {
            Issue.record("setup: roster or advert refused"); return
        }
        let adverts = AccountAdverts(account: f.context.account, database: f.context.routingDatabase)
        #expect(try adverts.latestOwnAdvert() != nil)
        var without = AppMessage.Roster(accountKey: f.account.publicKey, version: 3,
                                        deviceRecords: [f.host.record.encoded])
        without.signature = Bytes64(unchecked: f.account.sign(try without.signedBytes()))
        guard case .stored(let line) = f.mail.handle(.roster(without), from: f.host.record, heldMs: 0) else {
            Issue.record("the roster that removes this device was refused"); return
        }
        #expect(line.contains("removed"))
        #expect(try adverts.latestOwnAdvert() == nil)  // the router no longer offers the own Homebase
    }
}
