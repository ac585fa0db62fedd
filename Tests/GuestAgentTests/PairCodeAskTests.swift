import Basics
import Courier
import Foundation
@testable import GuestAgent
import Pairing
import Sealing
import Signing
import Testing
import Wire

/// `guest pair` without a code, the parts without the network: which devices may ask (identity,
/// relay, account key and a Homebase record on file; the roster's record preferred), and which
/// `pair-code` answers count (only the Homebase's, only for the request asked, never an
/// introduction); any `pair-code` is kept away from the mail handler.
@Suite struct PairCodeAskTests {
    @Test func onlyADeviceSetUpForAnAccountMayAsk() throws {
        let paths = GuestPaths(dataDirectory: try temporaryDirectory("guest-tests"))
        try paths.create()
        #expect(PairingAccount.load(paths) == nil)  // nothing at all
        let me = try DeviceIdentity.generate(name: "laptop", now: 1)
        try me.save(to: paths.identity)
        let host = try DeviceIdentity.generate(name: "workstation", now: 1)
        try RelayFile(path: paths.relaySetting).write(.init(url: "ws://127.0.0.1:1"))
        #expect(PairingAccount.load(paths) == nil)  // a relay but no account key, no Homebase record
        let account = SigningKey.generate()
        try AccountKeyFile(path: paths.accountKey).write(account.publicKey)
        #expect(PairingAccount.load(paths) == nil)  // still no Homebase record
        try RelayFile(path: paths.relaySetting).write(.init(url: "ws://127.0.0.1:1", homebase: hexString(host.record.encoded)))
        let byHand = try #require(PairingAccount.load(paths))
        #expect(byHand.homebase == host.record && byHand.roster == nil && byHand.accountKey == account.publicKey)

        // With a roster and homebase.key (as pairing leaves them), the roster's record is the one.
        let renamed = try DeviceIdentity.generate(name: "renamed-host", now: 2)
        var roster = AppMessage.Roster(accountKey: account.publicKey, version: 2,
                                       deviceRecords: [renamed.record.encoded, me.record.encoded])
        roster.signature = Bytes64(unchecked: account.sign(try roster.signedBytes()))
        try RosterFile(path: paths.roster).write(roster)
        try HomebaseKeyFile(path: paths.homebaseKey).write(renamed.signingKey.publicKey)
        let paired = try #require(PairingAccount.load(paths))
        #expect(paired.homebase == renamed.record && paired.roster?.version == 2)
    }

    @Test func onlyTheHomebasesAnswerToTheRequestAskedCounts() async throws {
        let host = try DeviceIdentity.generate(name: "workstation", now: 1)
        let sibling = try DeviceIdentity.generate(name: "phone", now: 1)
        let answers = PairCodeAnswers(homebase: host.signingKey.publicKey)
        let asked = Bytes16.repeating(1)
        answers.expect(asked)
        func code(_ id: Bytes16, _ text: String) -> AppMessage {
            .pairCode(.init(requestID: id, result: .issued(code: text, expiresMs: 1, maxTries: 3)))
        }
        func deliver(_ m: AppMessage, from: DeviceIdentity, introduced: Bool = false) -> Bool {
            answers.offer(Delivery(message: m, sender: from.record, messageID: MessageID.random(), receivedAtMs: 1,
                                   introduced: introduced))
        }
        // Not a pair-code: for the mail handler.
        #expect(!deliver(.cancel(requestID: asked), from: host))
        // Pair-codes that do not count are still taken away from the mail handler.
        #expect(deliver(code(asked, "from-a-sibling"), from: sibling))
        #expect(deliver(code(asked, "introduced"), from: host, introduced: true))
        #expect(deliver(code(.repeating(2), "another-request"), from: host))
        await #expect(throws: PairingError.noAnswer(seconds: 0)) { try await answers.wait(.milliseconds(30)) }
        #expect(deliver(code(asked, "the-one"), from: host))
        #expect(deliver(code(asked, "a-second-answer"), from: host))
        let got = try await answers.wait(.seconds(5))
        #expect(got.result == .issued(code: "the-one", expiresMs: 1, maxTries: 3))
    }

    @Test func onlyTheHomebasesOutcomeForTheRequestAskedCounts() throws {
        let host = try DeviceIdentity.generate(name: "workstation", now: 1)
        let sibling = try DeviceIdentity.generate(name: "phone", now: 1)
        let answers = PairCodeAnswers(homebase: host.signingKey.publicKey)
        let asked = Bytes16.repeating(1)
        answers.expect(asked)
        func outcome(_ id: Bytes16, _ o: AppMessage.PairCodeOutcome.Outcome) -> AppMessage {
            .pairCodeOutcome(.init(requestID: id, codeID: .repeating(4), outcome: o, wrongTries: 3))
        }
        func deliver(_ m: AppMessage, from: DeviceIdentity, introduced: Bool = false) -> Bool {
            answers.offer(Delivery(message: m, sender: from.record, messageID: MessageID.random(), receivedAtMs: 1,
                                   introduced: introduced))
        }
        // Taken away from the mail handler, but not counted: another sender, an introduction, another request.
        #expect(deliver(outcome(asked, .used), from: sibling))
        #expect(deliver(outcome(asked, .used), from: host, introduced: true))
        #expect(deliver(outcome(.repeating(2), .used), from: host))
        #expect(answers.outcome == nil)
        #expect(deliver(outcome(asked, .burnt), from: host))
        #expect(deliver(outcome(asked, .used), from: host))  // the first one stays
        #expect(answers.outcome?.outcome == .burnt && answers.outcome?.wrongTries == 3)
    }
}
