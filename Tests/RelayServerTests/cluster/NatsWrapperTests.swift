import Foundation
import Synchronization
import Testing
@testable import RelayCluster

/// RelayCluster against a real three-node nats-server cluster (no relay): what the relay relies on.
@Suite(.serialized) struct NatsWrapperTests {
    func settings(_ c: NatsCluster, node: Int = 0) -> NatsSettings {
        var s = NatsSettings()
        s.servers = [c.urls[node]]
        s.user = NatsCluster.user
        s.password = NatsCluster.password
        return s
    }

    @Test func anUnauthenticatedClientIsRefused() throws {
        let c = try NatsCluster()
        defer { c.stopAll() }
        var anonymous = NatsSettings()
        anonymous.servers = [c.urls[1]]
        #expect(throws: ClusterError.self) { _ = try NatsConnection(anonymous) }
        var wrong = settings(c, node: 2)
        wrong.password = "not-the-password"
        #expect(throws: ClusterError.self) { _ = try NatsConnection(wrong) }
        // The right user does get in (the refusals above are about credentials, not a dead server).
        let ok = try NatsConnection(settings(c, node: 2))
        #expect(ok.state == .connected)
        ok.close()
    }

    @Test func noRespondersComesBackAtOnceAcrossNodes() throws {
        let c = try NatsCluster()
        defer { c.stopAll() }
        let a = try NatsConnection(settings(c, node: 0)), b = try NatsConnection(settings(c, node: 1))
        defer { a.close(); b.close() }
        let replies = Inbox<NatsMessage>()
        let inbox = try a.subscribe("hbr.test.>") { replies.put($0) }
        defer { inbox.cancel() }
        let got = Inbox<NatsMessage>()
        let sub = try b.subscribe("hb.d.present") { got.put($0) }
        defer { sub.cancel() }
        try b.flush()
        try a.flush()
        try a.publish("hb.d.absent", [1], reply: "hbr.test.1")
        let r = try replies.take()
        #expect(r.noResponders && r.subject == "hbr.test.1")
        // A subject with interest on another node is delivered there, and no 503 comes back.
        try a.publish("hb.d.present", [2], reply: "hbr.test.2")
        #expect(try got.take().data == [2])
    }

    @Test func mailStreamStoresCollapsesCountsDeliversAndAckDeletes() throws {
        let c = try NatsCluster()
        defer { c.stopAll() }
        let a = try NatsConnection(settings(c, node: 0)), b = try NatsConnection(settings(c, node: 2))
        defer { a.close(); b.close() }
        try a.ensureStream(.init(name: "T", subjects: ["t.>"], replicas: 3, maxAgeMs: 60_000, duplicateWindowMs: 60_000))
        try a.ensureStream(.init(name: "T", subjects: ["t.>"], replicas: 3, maxAgeMs: 60_000, duplicateWindowMs: 60_000))
        #expect(try a.publishDurable("t.r1.u.1", [1], messageID: "m1", maxWaitMs: 2_000) == .stored)
        #expect(try a.publishDurable("t.r1.u.1", [1], messageID: "m1", maxWaitMs: 2_000) == .duplicate)
        #expect(try a.publishDurable("t.r1.c.k", [2], messageID: "m2", maxWaitMs: 2_000) == .stored)
        #expect(try a.publishDurable("t.r1.c.k", [3], messageID: "m3", maxWaitMs: 2_000) == .stored)
        #expect(try a.publishDurable("t.r2.u.4", [4], messageID: "m4", maxWaitMs: 2_000) == .stored)
        #expect(try b.count(stream: "T", filter: "t.r1.>") == 2)
        let consumer = try b.pullConsumer(stream: "T", filter: "t.r1.>", durable: "r1", ackWaitMs: 30_000, maxAckPending: 100, inactiveMs: 60_000)
        let first = try consumer.fetch(batch: 10, held: 0)
        #expect(first.map(\.data) == [[1], [3]])
        // Handed out, not acked: empty only when the caller says it holds them.
        #expect(throws: ClusterError.mailRemains(2)) { try consumer.fetch(batch: 10, held: 0) }
        #expect(try consumer.fetch(batch: 10, held: first.count).isEmpty)
        for m in first { try b.ack(m.ackSubject) }
        try b.flush()
        try eventually_(what: "acked mail deleted") { try a.count(stream: "T", filter: "t.r1.>") == 0 }
        #expect(try a.count(stream: "T", filter: "t.r2.>") == 1)
        consumer.close()
    }
}

/// Polls (blocking) until `condition` holds; throws after the hang guard.
func eventually_(what: String, _ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(30)
    while !(try condition()) {
        guard Date() < deadline else { throw SetupError("never happened: \(what)") }
        usleep(10_000)
    }
}
