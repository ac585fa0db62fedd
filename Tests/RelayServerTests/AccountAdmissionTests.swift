import Foundation
import Signing
import Testing
import Wire
@testable import RelayServer

/// Admission by account (SPEC "Authentication"): `device-proof` before `auth`, and the
/// account's `account-order`s (revoke a device, admit a token), with no per-device edits.
@Suite("Account admission")
struct AccountAdmissionTests {
    let account = SigningKeyBox()
    /// The relay is configured as `WS://Relay.Test` (a fixed origin, so a restart on another port
    /// keeps it); proofs and orders are signed over its canonical form.
    let origin = "ws://relay.test:80"

    func relay(_ dataDir: String? = nil) throws -> RelayHarness {
        let a = account.publicKey
        return try RelayHarness(dataDir: dataDir) { $0.admission = .allowlist; $0.allowAccounts = [a]; $0.origin = "WS://Relay.Test" }
    }

    /// The proof as the account signs it, over the canonical origin (port written).
    func proof(_ h: RelayHarness, device: SigningKeyBox, version: UInt64 = 3, notAfter: UInt64? = nil,
               by signer: SigningKeyBox? = nil, origin: String? = nil) throws -> RelayFrame {
        let k = signer ?? account
        let until = notAfter ?? UInt64(Date().timeIntervalSince1970) + 3600
        let m = try RelayAuth.deviceProofBinding(origin: origin ?? self.origin, deviceKey: device.publicKey, rosterVersion: version,
                                                 notAfterSeconds: until)
        return .deviceProof(.init(accountKey: k.publicKey, rosterVersion: version, notAfterSeconds: until,
                                  signature: Bytes64(k.key.sign(m))!))
    }

    func order(_ h: RelayHarness, kind: UInt8, subject: Bytes32, version: UInt64 = 0, uses: UInt16 = 0,
               by signer: SigningKeyBox? = nil) throws -> RelayFrame {
        let k = signer ?? account
        let until = UInt64(Date().timeIntervalSince1970) + 3600
        let m = try RelayAuth.orderBinding(origin: origin, kind: kind, subject: subject, rosterVersion: version,
                                           notAfterSeconds: until, uses: uses)
        return .accountOrder(.init(accountKey: k.publicKey, kind: kind, subject: subject, rosterVersion: version,
                                   notAfterSeconds: until, uses: uses, signature: Bytes64(k.key.sign(m))!))
    }

    /// Connects `device`, sends `before` (a proof) and auth; the first answer.
    func attempt(_ h: RelayHarness, _ device: SigningKeyBox, before: RelayFrame? = nil, token: [UInt8]? = nil) throws -> (TestClient, AuthRefusalReason?) {
        let c = try TestClient.connect(loop: h.clients.loop, port: h.port)
        if let before { c.send(before) }
        try c.authenticate(key: device, origin: "WS://Relay.Test", token: token)
        let first = try c.next()
        if case .authOK = first { return (c, nil) }
        return (c, refusal([first]) ?? AuthRefusalReason(rawValue: 0))
    }

    /// Pings and reads up to the pong: every frame sent before it was handled.
    func roundTrip(_ c: TestClient, _ v: UInt64) throws -> Bool {
        c.send(.ping(v))
        while true { if try c.next() == .pong(v) { return true } }
    }

    @Test func aProofOfAnAllowedAccountAdmitsAndEveryOtherIsRefused() throws {
        let h = try relay()
        defer { h.stop() }
        let laptop = SigningKeyBox()
        #expect(try attempt(h, laptop, before: try proof(h, device: laptop)).1 == nil)
        // Made for another relay, expired, too long, or by an account the relay does not know.
        #expect(try attempt(h, laptop, before: try proof(h, device: laptop, origin: "ws://elsewhere.example:80")).1 == .badAccountProof)
        #expect(try attempt(h, laptop, before: try proof(h, device: laptop, notAfter: 1_000)).1 == .badAccountProof)
        #expect(try attempt(h, laptop, before: try proof(h, device: laptop, notAfter: .max / 2)).1 == .badAccountProof)
        #expect(try attempt(h, laptop, before: try proof(h, device: laptop, by: SigningKeyBox())).1 == .notAdmitted)
        // Another device's proof does not cover this one.
        #expect(try attempt(h, SigningKeyBox(), before: try proof(h, device: laptop)).1 == .badAccountProof)
        // A stranger: refused and counted.
        let before = try h.metric("homebase_relay_auth_failures_total{reason=\"not-admitted\"}")
        #expect(try attempt(h, SigningKeyBox()).1 == .notAdmitted)
        #expect(try h.metric("homebase_relay_auth_failures_total{reason=\"not-admitted\"}") == before + 1)
    }

    @Test func aRevokedDeviceIsCutOffAndRefusedUntilANewerRoster() throws {
        let dir = try temporaryDirectory("relay")
        var h = try relay(dir)
        let laptop = SigningKeyBox(), homebase = SigningKeyBox()
        let (open, refused) = try attempt(h, laptop, before: try proof(h, device: laptop, version: 3))
        #expect(refused == nil)
        let (host, _) = try attempt(h, homebase, before: try proof(h, device: homebase, version: 3))
        // An order signed by another account changes nothing.
        host.send(try order(h, kind: RelayFrame.AccountOrder.revokeDevice, subject: laptop.publicKey, version: 4, by: SigningKeyBox()))
        #expect(try roundTrip(host, 1))
        #expect(try attempt(h, laptop, before: try proof(h, device: laptop, version: 3)).1 == nil)
        // The account removes the laptop at roster 4: its open connection is closed, its proof refused.
        host.send(try order(h, kind: RelayFrame.AccountOrder.revokeDevice, subject: laptop.publicKey, version: 4))
        _ = try open.untilClosed()
        #expect(try attempt(h, laptop, before: try proof(h, device: laptop, version: 4)).1 == .notAdmitted)
        // Kept across a restart (the orders log in the data directory).
        h.stop()
        h = try relay(dir)
        defer { h.stop() }
        #expect(try attempt(h, laptop, before: try proof(h, device: laptop, version: 3)).1 == .notAdmitted)
        // Paired again later: a proof of a newer roster is honoured.
        #expect(try attempt(h, laptop, before: try proof(h, device: laptop, version: 5)).1 == nil)
    }

    @Test func anAdmittedTokenTakesAsManyDevicesAsItsUses() throws {
        let h = try relay()
        defer { h.stop() }
        let homebase = SigningKeyBox(), friend = SigningKeyBox()
        let token = Array("invite-token-0123456789abcdef".utf8)
        #expect(try attempt(h, friend, token: token).1 == .notAdmitted) // not yet registered
        let (host, _) = try attempt(h, homebase, before: try proof(h, device: homebase))
        host.send(try order(h, kind: RelayFrame.AccountOrder.admitToken, subject: Bytes32(sha256(token))!, uses: 1))
        #expect(try roundTrip(host, 2))
        #expect(try attempt(h, friend, token: token).1 == nil)
        #expect(try attempt(h, friend, token: token).1 == nil) // the same device again
        #expect(try attempt(h, SigningKeyBox(), token: token).1 == .badToken) // single use: taken
        // The account revokes the friend's device: the token no longer admits it.
        host.send(try order(h, kind: RelayFrame.AccountOrder.revokeDevice, subject: friend.publicKey, version: .max))
        #expect(try roundTrip(host, 3))
        #expect(try attempt(h, friend, token: token).1 == .notAdmitted)
    }
}
