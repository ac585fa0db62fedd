import Foundation
import Pairing
import Sealing
import Signing
import Testing
import Wire

@Suite struct PairingCodeTests {
    let inviter = try! DeviceIdentity.generate(name: "workstation", now: 1)
    let joiner = try! DeviceIdentity.generate(name: "laptop", now: 2)

    func code(pin: [UInt8]? = nil) -> PairingCode {
        PairingCode.issue(relayURL: "wss://relay.example.com:8443", pin: pin, expiresMs: 1_800_000_000_000,
                          inviter: inviter.record)
    }

    @Test func roundTripsWithAndWithoutPin() throws {
        for c in [code(), code(pin: [UInt8](repeating: 7, count: 32))] {
            let text = c.text
            #expect(text.hasPrefix("hbpair1-"))
            #expect(try PairingCode(parsing: text) == c)
            // Typing it in upper case, with spaces or dashes, is the same code.
            #expect(try PairingCode(parsing: "  " + text.uppercased().replacingOccurrences(of: "HBPAIR1-", with: "hbpair1-") + "\n") == c)
        }
    }

    @Test func everySingleCharacterChangeIsMistyped() throws {
        let text = code().text
        let body = Array(text.dropFirst(PairingCode.prefix.count))
        var refused = 0
        for i in body.indices {
            var changed = body
            changed[i] = changed[i] == "a" ? "b" : "a"
            do {
                _ = try PairingCode(parsing: PairingCode.prefix + String(changed))
                Issue.record("a change at \(i) was accepted")
            } catch PairingError.mistyped {
                refused += 1
            } catch {
                // A changed first character may also read as another version; still refused.
                refused += 1
            }
        }
        #expect(refused == body.count)
        #expect(throws: PairingError.mistyped) { try PairingCode(parsing: String(text.dropLast(3))) }
        #expect(throws: PairingError.mistyped) { try PairingCode(parsing: text + "u") }
    }

    @Test func somethingElseIsNotACode() {
        #expect(throws: PairingError.self) { try PairingCode(parsing: "hb-invite-abc") }
        do { _ = try PairingCode(parsing: ""); Issue.record("empty accepted") } catch {
            #expect("\(error)".contains("not a pairing code"))
        }
    }

    @Test func lookAlikeLettersReadAsDigits() throws {
        let text = code().text
        let body = String(text.dropFirst(PairingCode.prefix.count))
        let swapped = PairingCode.prefix + body.replacingOccurrences(of: "1", with: "l").replacingOccurrences(of: "0", with: "o")
        #expect(swapped != text)
        #expect(try PairingCode(parsing: swapped) == PairingCode(parsing: text))
    }

    @Test func proofsBindTheSecretAndTheRecords() throws {
        let c = code()
        var other = c
        other.secret = Secret32(unchecked: randomBytes(count: 32))
        let p = PairingProofs.request(c, joiner: joiner.record)
        #expect(PairingProofs.equal(p, PairingProofs.request(c, joiner: joiner.record)))
        #expect(!PairingProofs.equal(p, PairingProofs.request(other, joiner: joiner.record)))
        #expect(!PairingProofs.equal(p, PairingProofs.request(c, joiner: inviter.record)))

        let confirm = PairingProofs.confirmation(secret: c.secret, inviter: inviter.record, joiner: joiner.record)
        #expect(confirm.count == 9 && confirm.dropFirst(4).first == "-")
        #expect(confirm == PairingProofs.confirmation(secret: c.secret, inviter: inviter.record, joiner: joiner.record))
        #expect(confirm != PairingProofs.confirmation(secret: other.secret, inviter: inviter.record, joiner: joiner.record))
    }

    @Test func pairingMessagesRoundTrip() throws {
        let account = SigningKey.generate()
        var roster = AppMessage.Roster(accountKey: account.publicKey, version: 3,
                                       deviceRecords: [inviter.record.encoded, joiner.record.encoded])
        roster.signature = Bytes64(unchecked: account.sign(try roster.signedBytes()))
        let c = code()
        let messages: [AppMessage] = [
            .pairRequest(.init(codeID: c.codeID, proof: PairingProofs.request(c, joiner: joiner.record))),
            .pairWelcome(.init(codeID: c.codeID, roster: roster, proof: try PairingProofs.welcome(
                secret: c.secret, joiner: joiner.signingKey.publicKey, .init(codeID: c.codeID, roster: roster)))),
            .pairRefused(.init(codeID: c.codeID, reason: .wrongSecret, triesLeft: 2, text: "wrong code")),
            .pairRefused(.init(codeID: c.codeID, reason: .other(99))),
        ]
        for m in messages { #expect(try AppMessage.decode(m.encode()) == m) }
        #expect(try AppMessage.pairRequest(.init(codeID: c.codeID, proof: .zero)).encode().count == 1 + 8 + 32)
    }
}
