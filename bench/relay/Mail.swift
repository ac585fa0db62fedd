@preconcurrency import Glibc
import Signing
import RelayWire

extension Workloads {
    /// Mail publish-to-stored: one sender sends `count` mails (after `warmup`), each to a fresh
    /// offline recipient (no per-recipient cap is reached), and waits for `stored` before the next;
    /// prints `p50 p99` in µs. On one node `stored` follows the SQLite commit; in the cluster, the
    /// JetStream publish acknowledged by a quorum of the stream's replicas.
    static func mail(port: UInt16, count: Int, warmup: Int, size: Int) throws(BenchError) {
        guard let peer = try connectPeer(.relay, port: port, tls: false, name: "m\(getpid())") as? RelayPeer else {
            throw .protocolError("not a relay peer")
        }
        var samples: [UInt64] = []
        for i in 0..<(warmup + count) {
            let recipient = Bytes32(SigningKey.generate().publicKey.bytes)!
            // Unique per process and mail: the cluster's stream dedupes on the frame id.
            let id = (0..<8).map { UInt8(truncatingIfNeeded: i >> ($0 * 8)) } + (0..<8).map { UInt8(truncatingIfNeeded: Int(getpid()) >> ($0 * 8)) }
            let frame = try peer.mailFrame(to: recipient, id: Bytes16(id)!, size: size)
            let before = peer.stored
            let t0 = nowNs()
            try peer.sock.write(frame)
            while peer.stored == before { _ = try peer.readOne() }
            if i >= warmup { samples.append(nowNs() - t0) }
        }
        samples.sort()
        let us = { (ns: UInt64) in Double(ns) / 1000 }
        print("\(us(samples[count / 2])) \(us(samples[min(count - 1, count * 99 / 100)]))")
    }
}

extension Workloads {
    /// Peers on two nats-servers: a subscription reaches the other server through the route a
    /// moment after SUB, and a message published before that is dropped silently (a round trip
    /// would wait for ever). Probes each way until one arrives, then reads off the late ones.
    static func settle(_ a: Peer, _ b: Peer) throws(BenchError) {
        for (from, to) in [(a, b), (b, a)] {
            to.sock.setReadTimeout(ms: 100)
            var arrived = false
            for _ in 0..<100 where !arrived {
                try from.send()
                do { _ = try to.receive(); arrived = true } catch .io { continue }
            }
            guard arrived else { throw .protocolError("no message crossed between the two servers in 10 s") }
            while true { do { _ = try to.receive() } catch .io { break } }
            to.sock.setReadTimeout(ms: 0)
        }
    }
}
