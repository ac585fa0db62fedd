import Foundation
@testable import HomebaseAgent
import Pairing
import Sealing
import Signing
import Testing
import Wire

/// How the agent answers pairing requests (its store effects included), without the network:
/// each refusal has its own reason, a wrong proof counts a try and the last try burns the code,
/// a welcome proves the secret and lists the device, and a used code serves only its device.
@Suite struct PairingDecisionTests {
    struct Setup {
        let fixture: HostFixture
        let store: HostStore
        let joiner = try! DeviceIdentity.generate(name: "laptop", now: 1)

        init() async throws {
            fixture = try await HostFixture(runtime: nil, sibling: false)
            store = try fixture.files.openStore()
        }

        func code(validMs: Int64 = 600_000, tries: Int = 3) throws -> PairingCode {
            let now = nowMs()
            let c = PairingCode.issue(relayURL: fixture.relay.url, expiresMs: now + validMs, inviter: fixture.host)
            try store.savePairing(codeID: c.codeID, secret: c.secret, createdMs: now, expiresMs: c.expiresMs, maxTries: tries)
            return c
        }

        func ask(_ c: PairingCode, proof: Bytes32? = nil, as device: DeviceIdentity? = nil) -> AppMessage {
            let d = device ?? joiner
            return fixture.agent.decidePairing(d.record, .init(codeID: c.codeID, proof: proof ?? PairingProofs.request(c, joiner: d.record)))
        }

        static func with(_ body: (Setup) async throws -> Void) async throws {
            let s = try await Setup()
            do { try await body(s) } catch { s.store.close(); await s.fixture.stop(); throw error }
            s.store.close()
            await s.fixture.stop()
        }
    }

    func reason(_ m: AppMessage) -> AppMessage.PairRefused? {
        if case .pairRefused(let r) = m { return r }
        return nil
    }

    @Test func unknownExpiredAndWrongCodesEachHaveTheirReason() async throws {
        try await Setup.with { s in
            var unknown = try s.code()
            unknown.codeID = Bytes8(unchecked: [1, 2, 3, 4, 5, 6, 7, 8])
            #expect(reason(s.ask(unknown))?.reason == .unknownCode)
            #expect(reason(s.ask(try s.code(validMs: -1)))?.reason == .expired)

            let c = try s.code(tries: 3)
            let wrong = Bytes32(unchecked: randomBytes(count: 32))
            for left in [2, 1] as [UInt8] {
                let r = reason(s.ask(c, proof: wrong))
                #expect(r?.reason == .wrongSecret && r?.triesLeft == left)
            }
            #expect(reason(s.ask(c, proof: wrong))?.reason == .burnt)
            #expect(reason(s.ask(c))?.reason == .burnt)  // the right proof is too late now
            #expect(try s.store.pairing(c.codeID)?.state == .burnt)
            #expect(try s.store.devices().count == 1)  // nobody was added
        }
    }

    @Test func aWelcomeProvesTheSecretListsTheDeviceAndUsesTheCode() async throws {
        try await Setup.with { s in
            let c = try s.code()
            let before = try s.store.roster()!.version
            guard case .pairWelcome(let w) = s.ask(c) else { Issue.record("no welcome"); return }
            #expect(PairingProofs.equal(w.proof, try PairingProofs.welcome(secret: c.secret, joiner: s.joiner.signingKey.publicKey, w)))
            #expect(w.roster.version == before + 1)
            #expect(w.roster.deviceRecords.contains(s.joiner.record.encoded) && w.roster.deviceRecords.contains(s.fixture.host.encoded))
            #expect(w.roster.verifies())
            #expect(w.advert?.hostKey == s.fixture.host.signingKey)
            let used = try #require(try s.store.pairing(c.codeID))
            #expect(used.state == .used && used.deviceKey == s.joiner.signingKey.publicKey)
            #expect(used.confirmation == PairingProofs.confirmation(secret: c.secret, inviter: s.fixture.host, joiner: s.joiner.record))

            // Single use: another device with the right proof is refused; the same device again
            // (its welcome was lost) is welcomed again without a new roster version.
            let other = try DeviceIdentity.generate(name: "phone", now: 1)
            #expect(reason(s.ask(c, as: other))?.reason == .used)
            guard case .pairWelcome(let again) = s.ask(c) else { Issue.record("the same device was not welcomed again"); return }
            #expect(again.roster.version == w.roster.version)
        }
    }

    @Test func aHostWithoutTheAccountKeyCannotAddDevices() async throws {
        try await Setup.with { s in
            let c = try s.code()
            try FileManager.default.removeItem(atPath: s.fixture.files.accountKeyPath)
            let r = reason(s.ask(c))
            #expect(r?.reason == .unavailable && r?.text.contains("account key") == true)
        }
    }
}
