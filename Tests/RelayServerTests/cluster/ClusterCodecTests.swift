import Testing
import Wire
@testable import RelayServer

/// The cluster's subjects and node-to-node bytes, without sockets.
struct ClusterCodecTests {
    let r = Bytes32(unchecked: Array(repeating: 1, count: 32)), s = Bytes32(unchecked: Array(repeating: 2, count: 32))
    let id = Bytes16(unchecked: Array(0..<16))

    @Test func subjectsNeverCarryTheKeyInClear() {
        let subject = ClusterSubjects.device(r)
        #expect(subject.hasPrefix("hb.d.") && subject.count == 5 + 32)
        #expect(!subject.contains(r.hex) && !subject.contains(String(r.hex.prefix(16))))
        #expect(ClusterSubjects.device(r) != ClusterSubjects.device(s))
        #expect(ClusterSubjects.mailbox(r) == "hb.m." + ClusterSubjects.keyHash(r) + ".>")
    }

    @Test func collapsedMailSharesOneSubjectPerSenderAndKey() {
        let a = ClusterSubjects.mail(to: r, from: s, frameID: id, collapseKey: [7], size: 5, expiresMs: 1_000)
        let b = ClusterSubjects.mail(to: r, from: s, frameID: Bytes16(unchecked: Array(repeating: 9, count: 16)), collapseKey: [7], size: 5, expiresMs: 1_000)
        #expect(a == b && a.contains(".c."))
        // Another size: another subject, the same tail (the older one is purged, ClusterQuota.swift).
        let bigger = ClusterSubjects.mail(to: r, from: s, frameID: id, collapseKey: [7], size: 6, expiresMs: 1_000)
        #expect(bigger != a && bigger.hasSuffix(ClusterSubjects.tail(from: s, frameID: id, collapseKey: [7])))
        #expect(ClusterSubjects.mail(to: r, from: r, frameID: id, collapseKey: [7], size: 5, expiresMs: 1_000) != a) // another sender's key is its own
        let u1 = ClusterSubjects.mail(to: r, from: s, frameID: id, collapseKey: [], size: 5, expiresMs: 1_000)
        let u2 = ClusterSubjects.mail(to: r, from: s, frameID: Bytes16(unchecked: Array(repeating: 9, count: 16)), collapseKey: [], size: 5, expiresMs: 1_000)
        #expect(u1 != u2 && u1.contains(".u."))
        #expect(ClusterSubjects.messageID(to: r, from: s, frameID: id) == ClusterSubjects.messageID(to: r, from: s, frameID: id))
        #expect(ClusterSubjects.messageID(to: r, from: s, frameID: id) != ClusterSubjects.messageID(to: s, from: r, frameID: id))
    }

    @Test func replySubjectsRoundTrip() {
        let reply = ClusterSubjects.reply(node: "relay-2", serial: 42, frameID: id)
        #expect(reply.hasPrefix("hbr.relay-2."))
        let parsed = ClusterSubjects.parseReply(reply)
        #expect(parsed?.serial == 42 && parsed?.frameID == id)
        #expect(ClusterSubjects.parseReply("hbr.relay-2.x.00") == nil)
        #expect(ClusterSubjects.parseReply("hbr.relay-2.1.zz") == nil)
    }

    @Test func nodeMessagesRoundTripAndRejectJunk() {
        for m in [ClusterMessage.live([0x11, 0, 1]), .claim(authMs: 1_764_000_000_123, node: "relay-1"), .mailWaiting,
                                  .gone(peer: r, reason: .replaced)] {
            #expect(ClusterMessage.decode(m.encode()) == m)
        }
        #expect(ClusterMessage.decode([]) == nil)
        #expect(ClusterMessage.decode([0x43, 1, 2]) == nil)
        #expect(ClusterMessage.decode([0x4d, 0]) == nil)
        #expect(ClusterMessage.decode([0x00]) == nil)
    }

    @Test func storedMailCarriesItsOwnTTL() {
        let b = StoredMail.encode(expiresMs: 5_000, storedMs: 1_000, sender: s, frameID: id, sealed: [9, 8, 7][...])
        let m = StoredMail.decode(b)
        #expect(m?.expiresMs == 5_000 && m?.storedMs == 1_000 && m?.sender == s && m?.frameID == id && m.map { Array($0.sealed) } == [9, 8, 7])
        #expect(StoredMail.decode(Array(b.prefix(StoredMail.fixed - 1))) == nil)
        var wrong = b; wrong[0] = 2
        #expect(StoredMail.decode(wrong) == nil)
    }

    @Test func clusterFlagsAreCheckedAndDocumented() throws {
        #expect(ConfigLoader.helpText().contains("--cluster-nats "))
        #expect(ConfigLoader.helpText().contains("--cluster-node-name"))
        #expect(throws: RelayError.self) { try ConfigLoader.load(arguments: ["--cluster-nats", "nats://127.0.0.1:4222"], environment: [:]) }
        #expect(throws: RelayError.self) { try ConfigLoader.load(arguments: ["--cluster-nats", "http://x"], environment: [:]) }
        #expect(throws: RelayError.self) { try ConfigLoader.load(arguments: ["--cluster-node-name", "a.b"], environment: [:]) }
        let c = try ConfigLoader.load(arguments: ["--cluster-nats", "nats://127.0.0.1:4222,tls://10.0.0.2:4222", "--cluster-node-name", "relay-1"],
                                      environment: [:])
        #expect(c.cluster.enabled && c.cluster.natsURLs.count == 2 && c.cluster.nodeName == "relay-1")
        #expect(try !ConfigLoader.load(arguments: [], environment: [:]).cluster.enabled)
    }
}
