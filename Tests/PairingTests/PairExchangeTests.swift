import Foundation
import Pairing
import Sealing
import Signing
import Testing
import Wire

/// The joining side's checks of a welcome (shared by `guest pair` and `homebase pair CODE`),
/// without the network: only a welcome that proves the code, carries a roster signed by its
/// account key and lists both devices passes; each forgery fails with its own reason.
@Suite struct PairExchangeTests {
    let inviter = try! DeviceIdentity.generate(name: "workstation", now: 1)
    let joiner = try! DeviceIdentity.generate(name: "second", now: 2)
    let account = SigningKey.generate()

    var code: PairingCode { PairingCode.issue(relayURL: "ws://127.0.0.1:1", expiresMs: 1_800_000_000_000, inviter: inviter.record) }

    /// A welcome as the inviter makes it: roster signed by `signer`, proof with `secret`.
    func welcome(_ code: PairingCode, records: [DeviceRecord]? = nil, signer: SigningKey? = nil,
                 secret: Secret32? = nil) throws -> AppMessage.PairWelcome {
        let key = signer ?? account
        var roster = AppMessage.Roster(accountKey: account.publicKey, version: 2,
                                       deviceRecords: (records ?? [inviter.record, joiner.record]).map(\.encoded))
        roster.signature = Bytes64(unchecked: key.sign(try roster.signedBytes()))
        var w = AppMessage.PairWelcome(codeID: code.codeID, roster: roster)
        w.proof = try PairingProofs.welcome(secret: secret ?? code.secret, joiner: joiner.signingKey.publicKey, w)
        return w
    }

    func reason(_ body: () throws -> Void) -> String {
        do { try body(); return "passed" } catch PairingError.forgedAnswer(let why) { return why } catch { return "\(error)" }
    }

    @Test func aTrueWelcomeGivesTheAccountAndTheSameConfirmationAsTheInviter() throws {
        let c = code
        let w = try PairExchange(identity: joiner).verify(try welcome(c), from: inviter.record, code: c)
        #expect(w.accountKey == account.publicKey && w.records.count == 2 && w.roster.version == 2)
        #expect(w.confirmation == PairingProofs.confirmation(secret: c.secret, inviter: inviter.record, joiner: joiner.record))
    }

    @Test func eachForgeryIsRefusedForItsReason() throws {
        let c = code, x = PairExchange(identity: joiner)
        let wrongSecret = try welcome(c, secret: Secret32(unchecked: [UInt8](repeating: 9, count: 32)))
        #expect(reason { _ = try x.verify(wrongSecret, from: inviter.record, code: c) }.contains("proof of the code"))
        let otherSigner = try welcome(c, signer: SigningKey.generate())
        #expect(reason { _ = try x.verify(otherSigner, from: inviter.record, code: c) }.contains("not signed by its account key"))
        let withoutMe = try welcome(c, records: [inviter.record])
        #expect(reason { _ = try x.verify(withoutMe, from: inviter.record, code: c) }.contains("does not list"))
        let stranger = try DeviceIdentity.generate(name: "relay", now: 3).record
        #expect(reason { _ = try x.verify(try welcome(c), from: stranger, code: c) }.contains("does not list"))
    }
}
