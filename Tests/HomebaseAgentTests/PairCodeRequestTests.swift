import Courier
import Foundation
import Pairing
import Sealing
import Signing
import Testing
import Wire
@testable import HomebaseAgent

/// A device of the account asks the Homebase for a pairing code (`guest pair` with no code): a
/// sibling gets one made and stored as `homebase pair` makes it (limits clamped), a grantee or
/// stranger and a Homebase without the account key are refused with nothing stored, and over
/// the relay the code comes back sealed to the asker.
@Suite(.serialized) struct PairCodeRequestTests {
    /// A fixture (not started) for `body`, stopped after it, also when it throws.
    func with(sibling: Bool, _ body: (HostFixture) async throws -> Void) async throws {
        let f = try await HostFixture(runtime: nil, sibling: sibling)
        do { try await body(f) } catch { await f.stop(); throw error }
        await f.stop()
    }

    func ask(_ f: HostFixture, _ who: DeviceRecord, validMs: UInt32 = 0, tries: UInt8 = 0) -> AppMessage.PairCode {
        f.agent.decidePairCode(who, .init(requestID: .random(), validMs: validMs, maxTries: tries))
    }

    func issued(_ a: AppMessage.PairCode) throws -> (PairingCode, UInt8) {
        guard case .issued(let text, let expires, let tries) = a.result else { throw TestSetupError("refused: \(a.result)") }
        let code = try PairingCode(parsing: text)
        #expect(UInt64(code.expiresMs) == expires)
        return (code, tries)
    }

    func refusal(_ a: AppMessage.PairCode) -> AppMessage.PairCode.Refusal? {
        if case .refused(let why, _) = a.result { return why }
        return nil
    }

    @Test func aSiblingGetsACodeMadeAndStoredLikeHomebasePair() async throws {
        try await with(sibling: true) { f in
            let (code, tries) = try issued(ask(f, f.guest.identity.record))
            #expect(tries == 3)
            #expect(code.inviterSigningKey == f.host.signingKey && code.inviterHPKEKey == f.host.hpkeKey)
            #expect(code.relayURL.hasPrefix(f.relay.url) && code.pin == nil)
            let store = try f.files.openStore()
            defer { store.close() }
            let saved = try #require(try store.pairing(code.codeID))
            #expect(saved.state == .open && saved.maxTries == 3 && saved.expiresMs - saved.createdMs == 600_000)
            #expect(saved.secret == code.secret)

            // The asker's limits, clamped to `homebase pair`'s.
            let (short, many) = try issued(ask(f, f.guest.identity.record, validMs: 90_000, tries: 200))
            #expect(many == 100)
            let shortSaved = try #require(try store.pairing(short.codeID))
            #expect(shortSaved.expiresMs - shortSaved.createdMs == 90_000 && shortSaved.maxTries == 100)
            #expect(try store.pairings().count == 2)
        }
    }

    @Test func aGranteeOrAStrangerIsRefusedAndNothingIsStored() async throws {
        try await with(sibling: false) { f in
            let store = try f.files.openStore()
            defer { store.close() }
            try store.saveGrant(GrantRecord(grantID: .random(), grantee: f.guest.identity.record, models: ["m"], expiresMs: 0,
                                            revoked: false, createdMs: 0))
            try f.agent.reload()
            let grantee = ask(f, f.guest.identity.record)
            #expect(refusal(grantee) == .notInAccount)
            if case .refused(_, let text) = grantee.result { #expect(text.contains("not a device of the Homebase's account")) }
            let stranger = try DeviceIdentity.generate(name: "stranger", now: 1)
            #expect(refusal(ask(f, stranger.record)) == .notInAccount)
            #expect(try store.pairings().isEmpty)
        }
    }

    @Test func aHomebaseWithoutTheAccountKeyRefuses() async throws {
        try await with(sibling: true) { f in
            try FileManager.default.removeItem(atPath: f.files.accountKeyPath)
            #expect(refusal(ask(f, f.guest.identity.record)) == .noAccountKey)
            let store = try f.files.openStore()
            defer { store.close() }
            #expect(try store.pairings().isEmpty)
        }
    }

    @Test func overTheRelayTheCodeComesBackSealedToTheAsker() async throws {
        try await HostFixture.with(runtime: nil) { f in
            var it = f.guest.courier.deliveries.makeAsyncIterator()
            let id = Bytes16.random()
            let sent = await f.guest.courier.send(.pairCodeRequest(.init(requestID: id, validMs: 60_000, maxTries: 2)), to: f.host)
            #expect(sent == .sent)
            var answer: AppMessage.PairCode?
            while answer == nil, let d = await it.next() {
                d.ack()
                if case .pairCode(let a) = d.message, d.sender.signingKey == f.host.signingKey { answer = a }
            }
            let a = try #require(answer)
            #expect(a.requestID == id)
            let (code, tries) = try issued(a)
            #expect(tries == 2 && code.inviterSigningKey == f.host.signingKey)
            try await eventually("the issue counted") { f.agent.live(running: true).outcomes["pair-code-issued"] == 1 }
        }
    }
}
