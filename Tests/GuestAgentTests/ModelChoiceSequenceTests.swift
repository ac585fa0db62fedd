import Foundation
@testable import GuestAgent
import Sealing
import Signing
import Testing
import Wire

/// A sibling cannot pin a model choice by sending a sequence near the top of the range: a jump
/// far above the highest sequence seen is refused, and a local change never overflows.
@Suite struct ModelChoiceSequenceTests {
    typealias Fixture = GuestMailTests.Fixture

    func choice(_ id: String, _ seq: UInt64, from d: DeviceIdentity) -> AppMessage {
        .modelChoice(.init(modelID: id, vision: false, sequence: seq, originDevice: d.signingKey.publicKey))
    }

    func withRoster() throws -> Fixture {
        let f = try Fixture()
        guard case .stored = f.mail.handle(.roster(try f.roster(2)), from: f.host.record, heldMs: 0) else {
            throw SetupError("the roster was not stored")
        }
        return f
    }

    @Test func aSequenceNearTheTopIsRefusedAndLocalChangesKeepWorking() throws {
        let f = try withRoster()
        guard case .refused = f.mail.handle(choice("ollama:pinned", UInt64(Int64.max) - 1, from: f.host), from: f.host.record, heldMs: 0) else {
            Issue.record("a choice 2^63-2 above nothing was applied"); return
        }
        #expect(try f.context.settings.get(.ollamaModel) == nil)
        let sync = ModelChoiceSync(database: f.context.routingDatabase)
        let me = f.me.signingKey.publicKey
        // Before the fix these stored Int64.max, then trapped on overflow.
        #expect(try sync.local(.ollama, "a", origin: me).sequence == 1)
        #expect(try sync.local(.ollama, "b", origin: me).sequence == 2)
    }

    @Test func aJumpWithinTheLimitIsAppliedOneBeyondIsNot() throws {
        let f = try withRoster()
        let limit = ModelChoiceSync.maxJump
        guard case .stored = f.mail.handle(choice("ollama:a", 10, from: f.host), from: f.host.record, heldMs: 0),
              case .stored = f.mail.handle(choice("ollama:b", 10 + limit, from: f.host), from: f.host.record, heldMs: 0) else {
            Issue.record("a jump within the limit was refused"); return
        }
        guard case .refused = f.mail.handle(choice("ollama:c", 10 + 2 * limit + 1, from: f.host), from: f.host.record, heldMs: 0) else {
            Issue.record("a jump beyond the limit was applied"); return
        }
        #expect(try f.context.settings.get(.ollamaModel) == "b")
    }

    @Test func aLocalChangeAtTheTopThrowsInsteadOfTrapping() throws {
        let f = try withRoster()
        let sync = ModelChoiceSync(database: f.context.routingDatabase)
        // A store written by an older version may hold the top already: refused with an error.
        try f.context.routingDatabase.transaction { tx in
            _ = try tx.execute(ModelChoiceSync.table)
            _ = try tx.execute("INSERT INTO model_choice(kind, value, sequence, origin) VALUES ('ollama', 'x', ?, ?)",
                               Int64.max, [UInt8](repeating: 1, count: 32))
        }
        #expect(throws: (any Error).self) { try sync.local(.ollama, "y", origin: f.me.signingKey.publicKey) }
    }
}
