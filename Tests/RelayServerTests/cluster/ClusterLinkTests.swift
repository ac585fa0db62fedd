import Foundation
import Testing
import Wire

/// A relay node that loses its NATS link: cut off without a FIN (issue test 5), or cut by NATS
/// as a slow consumer (test 7). relay-1 reaches NATS only through a FreezableProxy.
@Suite(.serialized) struct ClusterLinkTests {
    @Test func aNodeCutOffFromNatsWithoutAFinFailsClosedForMailAndTellsItsDevices() throws {
        let f = try ClusterFixture(relays: 2, relayExtra: [0: ["--cluster-nats-ping-interval", "200ms", "--cluster-nats-max-pings-out", "2"]],
                                   proxyRelay1: true)
        defer { f.stop() }
        let aKey = SigningKeyBox(), bKey = SigningKeyBox()
        let (a, _) = try f.device(0, aKey)
        let (b, _) = try f.device(1, bKey)
        _ = try liveUntilDelivered(b, a, to: aKey.publicKey, [1])
        guard case .receive = try a.next() else { Issue.record("not routed before the cut"); return }
        f.proxy!.freeze() // no FIN, no RST: only unanswered pings can tell
        let started = Date()
        let mail = frameID()
        a.mail(to: bKey.publicKey, id: mail, [2])
        let (frames, _) = try a.untilClosed()
        let noticed = Date().timeIntervalSince(started)
        // Fail closed: the mail is refused (or the device closed before its answer), never `stored`.
        #expect(!frames.contains(.stored(frameID: mail)))
        #expect(frames.contains { if case .error(let e) = $0 { e.code == .internalError } else { false } })
        print("cluster: relay-1 cut off without a FIN: its device told internal-error after \(Int(noticed * 1000)) ms (pings 200ms x 2); frames before: \(frames)")
        #expect(try f.metrics(0).contains("homebase_relay_cluster_closed_nats_down_total 1"))
        // The device goes elsewhere and is reachable there.
        let (a2, _) = try step("a reconnects on relay-2") { try f.device(1, aKey) }
        _ = try liveUntilDelivered(b, a2, to: aKey.publicKey, [3])
        guard case .receive = try a2.next() else { Issue.record("not routed after the reconnect"); return }
        // The refused mail was never stored: the recipient's backlog does not hold it.
        let (_, backlog) = try step("b reconnects") { try f.device(1, bKey) }
        #expect(!backlog.contains { $0.frameID == mail })
        // relay-1 reconnects to a discovered NATS node (around the frozen link) and serves again.
        #expect(try eventuallyAuthenticates(f, 0))
    }

    @Test func aSlowNodeCutByNatsAsASlowConsumerSendsItsDevicesElsewhere() throws {
        // Small pending buffer on NATS node 1 only; relay-1's pings far apart: NATS must cut it.
        let f = try ClusterFixture(relays: 2, relayExtra: [0: ["--cluster-nats-ping-interval", "60s"], 1: ["--rate", "100000", "--burst", "100000"]],
                                   proxyRelay1: true, natsExtra: [0: "max_pending: 262144\nmax_payload: 131072"])
        defer { f.stop() }
        let aKey = SigningKeyBox(), bKey = SigningKeyBox()
        let (a, _) = try f.device(0, aKey)
        let (b, _) = try f.device(1, bKey)
        _ = try liveUntilDelivered(b, a, to: aKey.publicKey, [1])
        guard case .receive = try a.next() else { Issue.record("not routed before"); return }
        f.proxy!.freeze() // relay-1 stops reading: NATS node 1's buffer for it fills
        let big = [UInt8](repeating: 7, count: 60_000)
        var sent = 0
        let deadline = Date().addingTimeInterval(60)
        while !f.nats.log(0).contains("Slow Consumer"), Date() < deadline {
            for _ in 0..<20 { b.live(to: aKey.publicKey, id: frameID(), big); sent += 1 }
            while (try? b.event(timeout: .milliseconds(20))) != nil {}
        }
        #expect(f.nats.log(0).contains("Slow Consumer"))
        f.proxy!.thaw() // relay-1 reads what was buffered, then the server's close
        let (frames, _) = try a.untilClosed()
        #expect(frames.contains { if case .error(let e) = $0 { e.code == .internalError } else { false } })
        print("cluster: slow consumer cut after \(sent) live frames of 60 kB; relay-1's device closed with internal-error")
        let (a2, _) = try f.device(1, aKey)
        _ = try liveUntilDelivered(b, a2, to: aKey.publicKey, [3])
        guard case .receive = try a2.next() else { Issue.record("not routed after the reconnect"); return }
    }
}

/// `body`, its error prefixed with what the test was doing.
func step<T>(_ what: String, _ body: () throws -> T) throws -> T {
    do { return try body() } catch { throw TestSetupError("\(what): \(error)") }
}

/// A device authenticates on relay `i` (refused while the node's link is down); false when the
/// hang guard passes first.
func eventuallyAuthenticates(_ f: ClusterFixture, _ i: Int) throws -> Bool {
    let deadline = Date().addingTimeInterval(30)
    while Date() < deadline {
        if (try? f.device(i)) != nil { return true }
        Thread.sleep(forTimeInterval: 0.1)
    }
    return false
}
