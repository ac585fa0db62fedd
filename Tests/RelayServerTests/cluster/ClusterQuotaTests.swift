import Foundation
import Testing
import Wire
@testable import RelayCluster
@testable import RelayServer
import Basics

/// The single node's mail quotas across the cluster (ClusterQuota.swift): senders on three nodes,
/// one offline recipient; real nats-server and homebase-relay processes.
@Suite(.serialized) struct ClusterQuotaTests {
    static let caps = ["--mailbox-max-frames", "10", "--mailbox-max-bytes", "1000", "--mailbox-sender-frames", "4"]

    /// Sends one mail frame; true when `stored`, false when `mailbox-full` (anything else: recorded).
    func stored(_ c: TestClient, to key: Bytes32, collapse: [UInt8] = [], _ sealed: [UInt8]) throws -> Bool {
        let id = frameID()
        c.mail(to: key, id: id, collapse: collapse, sealed)
        switch try c.next() {
        case .stored(let got) where got == id: return true
        case .mailboxFull(let got) where got == id: return false
        case let other: Issue.record("unexpected \(other)"); return false
        }
    }

    @Test func senderShareAndMailboxBytesAndFramesHoldAcrossNodes() throws {
        let f = try ClusterFixture(extra: Self.caps)
        defer { f.stop() }
        let rKey = SigningKeyBox(), r = rKey.publicKey
        let (a, _) = try f.device(0), (b, _) = try f.device(1), (c, _) = try f.device(2)
        // One sender, its share: 4 of the 10 frames (a collapsed one among them).
        #expect(try stored(a, to: r, collapse: [7], [0]))
        let aAnswers = try (0..<9).map { i in try stored(a, to: r, [UInt8(i + 1)]) }
        #expect(aAnswers.filter { $0 }.count == 3)
        // Replacing its own collapsed frame takes no room (here another size: another subject).
        #expect(try stored(a, to: r, collapse: [7], [9, 9]))
        // A sender on another node has a share of its own.
        #expect(try (0..<5).map { _ in try stored(b, to: r, [2]) } == [true, true, true, true, false])
        // A third node: the mailbox's bytes (9 held + 400; 700 more would pass 1000), then its frames.
        let big = [UInt8](repeating: 3, count: 400)
        #expect(try stored(c, to: r, big))
        #expect(try !stored(c, to: r, [UInt8](repeating: 4, count: 700)))
        #expect(try stored(c, to: r, [5]))
        #expect(try !stored(c, to: r, [6]))
        #expect(try f.metrics(0).contains("homebase_relay_mail_refused_total{reason=\"sender-share\"} 6"))
        #expect(try f.metrics(1).contains("homebase_relay_mail_refused_total{reason=\"sender-share\"} 1"))
        #expect(try f.metrics(2).contains("homebase_relay_mail_refused_total{reason=\"recipient-full\"} 2"))
        // Everything stored is delivered (the older collapsed frame is not), and acks make room.
        let (d, got) = try f.device(1, rKey)
        #expect(got.count == 10)
        #expect(got.filter { $0.sealed == [0] }.isEmpty && got.filter { $0.sealed == [9, 9] }.count == 1)
        #expect(got.filter { $0.sealed == big }.count == 1)
        for m in got { d.send(.ack(frameID: m.frameID)) }
        var room = false
        for _ in 0..<100 where !room { // the acks reach the stream asynchronously
            room = try stored(c, to: r, [8])
            if !room { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(room)
    }

    /// Expired frames take no room (as on one node), though 2.9 keeps them until delivery.
    @Test func expiredMailTakesNoRoom() throws {
        let f = try ClusterFixture(relays: 2, extra: Self.caps)
        defer { f.stop() }
        let rKey = SigningKeyBox(), r = rKey.publicKey
        let (a, _) = try f.device(0)
        for i in 0..<4 {
            let id = frameID()
            a.mail(to: r, id: id, ttl: 1, [UInt8(i)])
            #expect(try a.next() == .stored(frameID: id))
        }
        #expect(try !stored(a, to: r, [9])) // the share is used up
        Thread.sleep(forTimeInterval: 2.1) // past the 1 s TTL, rounded up to whole seconds (not a speed assertion)
        #expect(try (0..<4).map { i in try stored(a, to: r, [UInt8(10 + i)]) } == [true, true, true, true])
        let (_, got) = try f.device(1, rKey)
        #expect(got.map(\.sealed) == [[10], [11], [12], [13]]) // the expired ones are not delivered
    }

    /// Mail stored by a relay of the layout before the quotas (`hb.m.<kh>.u.<id>`) is still
    /// delivered and ack-deleted: the consumer's filter `hb.m.<kh>.>` covers both layouts.
    @Test func mailStoredInTheOldLayoutIsDeliveredAfterTheUpgrade() throws {
        let f = try ClusterFixture(relays: 1)
        defer { f.stop() }
        var settings = NatsSettings()
        settings.servers = [f.nats.urls[1]]
        settings.user = NatsCluster.user
        settings.password = NatsCluster.password
        let nats = try NatsConnection(settings)
        defer { nats.close() }
        let key = SigningKeyBox(), sender = SigningKeyBox().publicKey
        let kh = ClusterSubjects.keyHash(key.publicKey)
        let ids = (0..<2).map { _ in frameID() }
        let now = wallClockMs()
        for (i, (id, subject)) in zip(ids, ["hb.m.\(kh).u.\(i0(ids[0]))", "hb.m.\(kh).c.\(i0(ids[1]))"]).enumerated() {
            let payload = StoredMail.encode(expiresMs: now + 60_000, storedMs: now, sender: sender, frameID: id, sealed: [UInt8(i)][...])
            #expect(try nats.publishDurable(subject, payload, messageID: "old-\(i)", maxWaitMs: 2_000) == .stored)
        }
        let (d, got) = try f.device(0, key)
        #expect(got.map(\.frameID) == ids)
        for m in got { d.send(.ack(frameID: m.frameID)) }
        var left = 2
        for _ in 0..<100 where left > 0 {
            left = try nats.count(stream: "HOMEBASE_MAIL", filter: "hb.m.\(kh).>")
            if left > 0 { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(left == 0)
    }

    private func i0(_ id: Bytes16) -> String { id.hex }
}
