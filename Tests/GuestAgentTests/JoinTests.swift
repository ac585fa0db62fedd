import Foundation
@testable import GuestAgent
import Routing
import Sealing
import Signing
import Testing
import Wire

/// `guest join` before the network: the invite's checks, and what the host's mail does to the
/// joined Homebase (grant → joined, revoke → revoked with its reason, adverts only once joined).
@Suite struct JoinTests {
    let host = try! DeviceIdentity.generate(name: "friend", now: 1)
    let now: Int64 = 1_750_000_000_000

    func invite(expires: UInt64? = nil, relay: String = "ws://127.0.0.1:9", record: DeviceRecord? = nil) throws -> String {
        let i = AppMessage.Invite(relayURL: relay, hostSigningKey: host.signingKey.publicKey,
                                  hostHPKEKey: Bytes32(unchecked: host.hpkeKey.publicKey.bytes),
                                  inviteSecret: Secret32(unchecked: randomBytes(count: 32)), models: ["tiny"],
                                  ratePerMinute: 0, expiresMs: expires ?? UInt64(now + 60_000))
        return try InviteCode.encode(i, hostRecord: (record ?? host.record).encoded)
    }

    func joinError(_ text: String) -> String {
        do { _ = try GuestJoin.check(text, nowMs: now); return "accepted" } catch { return "\(error)" }
    }

    @Test func aGoodInviteChecksOut() throws {
        let checked = try GuestJoin.check(try invite(), nowMs: now)
        #expect(checked.host == host.record && checked.invite.models == ["tiny"])
    }

    @Test func eachBadInviteSaysWhatIsWrong() throws {
        let good = try invite()
        #expect(joinError("hello").contains("does not start with hb-invite-"))
        let tail = good.hasSuffix("AA") ? "BB" : "AA"  // a real change to the last characters
        #expect(joinError(String(good.dropLast(2)) + tail).contains("checksum mismatch"))
        #expect(joinError(good + "!").contains("outside base64url"))
        #expect(joinError(try invite(expires: UInt64(now - 1))).contains("this invite expired"))
        let stranger = try DeviceIdentity.generate(name: "other", now: 1)
        #expect(joinError(try invite(record: stranger.record)).contains("names other keys"))
        #expect(joinError(try invite(relay: "http://nope")).contains("not a ws:// or wss:// URL"))
        // Whitespace from a chat client's line wrapping is ignored.
        let wrapped = String(good.prefix(40)) + "\n  " + String(good.dropFirst(40))
        #expect(joinError(wrapped) == "accepted")
    }

    @Test func hostMailMovesTheJoinedHomebase() async throws {
        let paths = GuestPaths(dataDirectory: try temporaryDirectory("guest-tests"))
        let context = try GuestContext(GuestConfiguration(paths: paths, environment: [:]))
        let checked = try GuestJoin.check(try invite(), nowMs: now)
        let (me, created) = try GuestJoin.prepare(checked, context: context, name: "laptop")
        #expect(created && me.record.name == "laptop")
        // The invite's relay is the joined Homebase's, not this account's: relay.json stays unset.
        #expect(try RelayFile(path: paths.relaySetting).read() == nil)
        #expect(try context.joined.joinedRecord(host.signingKey.publicKey)?.relayURL == "ws://127.0.0.1:9")
        #expect(try context.joined.joinedRecord(host.signingKey.publicKey)?.state == .invited)
        #expect(JoinedHostFiles(paths: paths).all() == [host.record])
        let mail = GuestMail(paths: paths, directory: GuestDirectory(me: me.signingKey.publicKey, bootstrap: nil, roster: []),
                             database: context.routingDatabase)
        let advert = try signedAdvert(1)
        guard case .refused = mail.handle(.advert(advert), from: host.record, heldMs: 0) else {
            Issue.record("an advert before the grant was accepted"); return
        }
        let grant = AppMessage.grant(.init(grantID: .repeating(3), models: ["tiny", "big"], ratePerMinute: 5, expiresMs: 0))
        guard case .stored = mail.handle(grant, from: host.record, heldMs: 0) else { Issue.record("grant not stored"); return }
        let joined = try #require(try context.joined.joinedRecord(host.signingKey.publicKey))
        #expect(joined.state == .joined && joined.models == ["tiny", "big"] && joined.lastHeardMs != nil)
        guard case .stored = mail.handle(.advert(advert), from: host.record, heldMs: 0) else { Issue.record("advert"); return }
        #expect(try context.joined.joinedRecord(host.signingKey.publicKey)?.models == ["tiny"])
        _ = mail.handle(.revoke(.init(grantID: .repeating(3), reason: "revoked by the host")), from: host.record, heldMs: 0)
        #expect(try context.joined.joinedRecord(host.signingKey.publicKey)?.state == .revoked)
        #expect(JoinedHostFiles(paths: paths).note(host.signingKey.publicKey) == "revoked by the host")
        guard case .refused = mail.handle(grant, from: host.record, heldMs: 0) else {
            Issue.record("a grant after the revoke was accepted"); return
        }
        await context.shutdown()
    }

    /// `grant-terms` (#23): the host's word on tools reaches the joined record the router reads,
    /// before the grant as the host sends it; never after a revoke. With it, a request with tools
    /// goes to the friend's Homebase; without it, on-device with the reason in `status`.
    @Test func grantTermsTellTheRouterWhetherToolsMayGo() async throws {
        let paths = GuestPaths(dataDirectory: try temporaryDirectory("guest-tests"))
        let context = try GuestContext(GuestConfiguration(paths: paths, environment: [:]))
        let (me, _) = try GuestJoin.prepare(try GuestJoin.check(try invite(), nowMs: now), context: context, name: "laptop")
        let mail = GuestMail(paths: paths, directory: GuestDirectory(me: me.signingKey.publicKey, bootstrap: nil, roster: []),
                             database: context.routingDatabase)
        let hostKey = host.signingKey.publicKey
        #expect(try context.joined.joinedRecord(hostKey)?.toolsGranted == false)
        guard case .stored = mail.handle(.grantTerms(.init(grantID: .repeating(3), tools: true)), from: host.record, heldMs: 0) else {
            Issue.record("terms not stored"); return
        }
        _ = mail.handle(.grant(.init(grantID: .repeating(3), models: ["tiny"], ratePerMinute: 0, expiresMs: 0)), from: host.record, heldMs: 0)
        var advert = try signedAdvert(1)
        advert.models[0].capabilities = [.completion, .tools]
        advert.signature = Bytes64(unchecked: host.signingKey.sign(try advert.signedBytes()))
        _ = mail.handle(.advert(advert), from: host.record, heldMs: 0)
        #expect(try context.joined.joinedRecord(hostKey)?.toolsGranted == true)
        try context.settings.set(.modelSource, "external")
        try context.settings.set(.ollamaModel, "tiny")
        try context.settings.set(.ollamaHost, hostKey.hex)
        let tools = RequestNeeds(tools: true)
        #expect(context.router.decide(tools).route.brain == .joinedHomebase && context.router.decide(tools).route.homebaseKey == hostKey)

        _ = mail.handle(.grantTerms(.init(grantID: .repeating(3), tools: false)), from: host.record, heldMs: 0)
        let onDevice = context.router.decide(tools)
        #expect(onDevice.route.brain == .onDevice)
        #expect(GuestStatus.gather(context).tools.contains("does not allow tools (ask its owner to share with --tools)"))
        _ = mail.handle(.revoke(.init(grantID: .repeating(3), reason: "revoked by the host")), from: host.record, heldMs: 0)
        guard case .refused = mail.handle(.grantTerms(.init(grantID: .repeating(3), tools: true)), from: host.record, heldMs: 0) else {
            Issue.record("terms after the revoke were accepted"); return
        }
        await context.shutdown()
    }

    func signedAdvert(_ sequence: UInt64) throws -> AppMessage.Advert { try tinyAdvert(by: host, sequence) }
}
