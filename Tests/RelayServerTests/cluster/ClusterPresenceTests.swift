import Foundation
import Synchronization
import Testing
import Wire
@testable import RelayCluster

/// Who is where across nodes: the same key on two nodes at once, `peer-gone` across nodes, and
/// the interest-propagation window. Real nats-server and homebase-relay processes.
@Suite(.serialized) struct ClusterPresenceTests {
    /// The same device key authenticating on relay-1 and relay-2 at the same moment, many times:
    /// exactly one connection stays, the other is told `replaced` (the claims cross the routes;
    /// each node claims again when its join settles and answers an older claim with its own).
    @Test func theSameKeyOnTwoNodesAtOnceLeavesExactlyOne() throws {
        let f = try ClusterFixture()
        defer { f.stop() }
        let (sender, _) = try f.device(2)
        for round in 0..<15 {
            let key = SigningKeyBox()
            let clients = Mutex<[Int: TestClient]>([:])
            DispatchQueue.concurrentPerform(iterations: 2) { i in
                let r = f.relay(i)
                guard let c = try? TestClient.connect(loop: f.loop.loop, port: r.port) else { return }
                try? c.authenticate(key: key, origin: r.origin)
                clients.withLock { $0[i] = c }
            }
            let both = clients.withLock { $0 }
            guard let one = both[0], let two = both[1] else { Issue.record("round \(round): no connection"); return }
            // Each is told auth-ok and then `replaced`, or `replaced` at once; the other stays.
            var replaced: [Int] = []
            for (i, c) in [(0, one), (1, two)] {
                var sawReplaced = false
                reading: while true {
                    guard let e = try? c.event(timeout: .milliseconds(replaced.isEmpty && i == 1 ? 5_000 : 1_500)) else { break }
                    switch e {
                    case .frame(.error(let err)) where err.code == .replaced: sawReplaced = true
                    case .closed: break reading
                    default: continue
                    }
                }
                if sawReplaced { replaced.append(i) }
            }
            #expect(replaced.count == 1, "round \(round): replaced \(replaced)")
            guard replaced.count == 1 else { return }
            let stays = replaced[0] == 0 ? two : one
            let id = try liveUntilDelivered(sender, stays, to: key.publicKey, [UInt8(round)])
            var next = try stays.next()
            while next == .queueEmpty { next = try stays.next() } // its consumer may be slow to answer under load
            guard case .receive(let got) = next else { Issue.record("round \(round): the survivor got \(next)"); return }
            #expect(got.frameID == id)
            stays.close()
            // The sender exchanged a frame with it: it hears that it left (and the next round starts clean).
            #expect(try sender.next() == .peerGone(.init(peer: key.publicKey, reason: .closed)))
        }
    }

    /// `peer-gone` reaches a correspondent on another node: the sender's node remembers whom it
    /// sent to, the receiver's node whom it heard from (as one node does, PeerGone.swift).
    @Test func peerGoneReachesACorrespondentOnAnotherNode() throws {
        let f = try ClusterFixture()
        defer { f.stop() }
        let aKey = SigningKeyBox(), bKey = SigningKeyBox(), cKey = SigningKeyBox()
        let (a, _) = try f.device(0, aKey), (b, _) = try f.device(1, bKey), (c, _) = try f.device(2, cKey)
        // a (relay-1) sent to b (relay-2): a leaves, b hears it.
        _ = try liveUntilDelivered(a, b, to: bKey.publicKey, [1])
        guard case .receive = try b.next() else { Issue.record("a's frame did not reach b"); return }
        a.close()
        #expect(try b.next() == .peerGone(.init(peer: aKey.publicKey, reason: .closed)))
        // c (relay-3) sent to b: b leaves, c hears it.
        _ = try liveUntilDelivered(c, b, to: bKey.publicKey, [2])
        guard case .receive = try b.next() else { Issue.record("c's frame did not reach b"); return }
        b.close()
        #expect(try c.next() == .peerGone(.init(peer: bKey.publicKey, reason: .closed)))
        #expect(try f.metrics(2).contains("homebase_relay_peer_gone_total{reason=\"closed\"} 1"))
    }

    /// A device connects on relay-2 and a frame is sent to it from relay-1 the moment its
    /// `auth-ok` arrives, many times: never a false `not-here` (the join flushes before auth-ok).
    @Test func aFrameSentTheMomentAuthOkArrivesOnAnotherNodeIsNeverAFalseNotHere() throws {
        let f = try ClusterFixture(relays: 2)
        defer { f.stop() }
        let (a, _) = try f.device(0)
        var notHere = 0
        let rounds = 100
        for _ in 0..<rounds {
            let key = SigningKeyBox()
            let b = try f.authenticated(1, key)
            let id = frameID()
            a.live(to: key.publicKey, id: id, [1])
            var got = false
            while !got, let e = try? b.event(timeout: .seconds(2)) {
                if case .frame(.receive(let r)) = e, r.frameID == id { got = true }
            }
            if !got {
                var answer = try? a.event(timeout: .seconds(2))
                while case .frame(.peerGone) = answer { answer = try? a.event(timeout: .seconds(2)) } // an earlier round's b left
                if case .frame(.notHere(let n)) = answer, n == id { notHere += 1 } else { Issue.record("neither delivered nor not-here: \(String(describing: answer))") }
            }
            b.close()
        }
        #expect(notHere == 0)
        print("cluster: frame sent at auth-ok on another node: \(rounds - notHere) delivered, \(notHere) not-here of \(rounds)")
    }

    /// Live frames sent from relay-1 all through a device's join on relay-2 (before its
    /// subscription, during the settle, after auth-ok): each is delivered or answered not-here,
    /// never both, never neither. Those that came during the settle are held and delivered.
    @Test func framesSentThroughoutAJoinAreEachDeliveredOrAnsweredNeverLost() throws {
        let f = try ClusterFixture(relays: 2)
        defer { f.stop() }
        let (a, _) = try f.device(0)
        let key = SigningKeyBox()
        let ids = (0..<150).map { _ in frameID() }
        let sending = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for id in ids { a.live(to: key.publicKey, id: id, [1]); usleep(500) }
            sending.signal()
        }
        usleep(10_000)
        let b = try f.authenticated(1, key)
        sending.wait()
        var delivered: Set<Bytes16> = [], notHere: Set<Bytes16> = []
        while let e = try? b.event(timeout: .seconds(2)) { if case .frame(.receive(let r)) = e { delivered.insert(r.frameID) } }
        while let e = try? a.event(timeout: .seconds(2)) { if case .frame(.notHere(let id)) = e { notHere.insert(id) } }
        #expect(delivered.isDisjoint(with: notHere))
        #expect(delivered.union(notHere) == Set(ids), "\(ids.count - delivered.union(notHere).count) lost")
        #expect(!delivered.isEmpty)
        let metrics = try f.metrics(1)
        let held = metrics.split(separator: "\n").first { $0.hasPrefix("homebase_relay_cluster_live_total{event=\"held-while-joining\"}") } ?? "?"
        print("cluster: 150 frames sent through a join on another node: \(delivered.count) delivered, \(notHere.count) not-here; \(held)")
    }

    /// Prints the window itself (a figure, no assertion): a subscription flushed on NATS node 2,
    /// then requests from NATS node 1 until one is not "no responders".
    @Test func interestPropagationWindowIsPrinted() throws {
        let c = try NatsCluster()
        defer { c.stopAll() }
        func conn(_ i: Int) throws -> NatsConnection {
            var s = NatsSettings()
            s.servers = [c.urls[i]]; s.user = NatsCluster.user; s.password = NatsCluster.password
            return try NatsConnection(s)
        }
        let a = try conn(0), b = try conn(1)
        defer { a.close(); b.close() }
        let replies = Inbox<NatsMessage>()
        let inbox = try a.subscribe("hbr.w.>") { replies.put($0) }
        defer { inbox.cancel() }
        try a.flush()
        var misses = 0, longest = 0.0
        for i in 0..<200 {
            let sub = try b.subscribe("hb.d.w\(i)") { _ in }
            try b.flush()
            let start = DispatchTime.now().uptimeNanoseconds
            for attempt in 0..<100 {
                let sentAt = DispatchTime.now().uptimeNanoseconds
                try a.publish("hb.d.w\(i)", [1], reply: "hbr.w.\(i)")
                if let got = try? replies.take(timeout: .milliseconds(20)), got.noResponders { misses += 1; continue }
                if attempt > 0 { longest = max(longest, Double(sentAt - start) / 1e6) }
                break // no 503 within 20 ms: delivered
            }
            sub.cancel()
        }
        var load = "?"
        if let l = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) { load = String(l.prefix(14)) }
        print("cluster: interest propagation node 2 -> node 1 after flush: \(misses) no-responders in 200 subscriptions, longest window \(longest) ms (load \(load))")
    }
}
