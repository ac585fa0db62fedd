import Basics
import Dispatch
@preconcurrency import Glibc

/// Monotonic nanoseconds (`Basics.monotonicNanos`).
func nowNs() -> UInt64 { monotonicNanos() }

/// Lifts the soft fd limit to the hard one (10,000 connections need more than the usual 1,024).
func raiseFileLimit() {
    var r = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &r)
    r.rlim_cur = r.rlim_max
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &r)
}

/// Pass a non-Sendable value to the one other thread that uses it while this one waits.
struct Handoff<T>: @unchecked Sendable { let value: T }

enum Workloads {
    /// Round trips A -> server -> B -> server -> A (or A -> echo -> A): prints `p50 p99` in µs.
    static func latency(_ proto: Proto, port: UInt16, tls: Bool, echo: Bool, count: Int, warmup: Int, size: Int) throws(BenchError) {
        let pid = getpid()
        let a = try connectPeer(proto, port: port, tls: tls, name: "a\(pid)")
        let b = echo ? a : try connectPeer(proto, port: port, tls: tls, name: "b\(pid)")
        try a.target(b, size: size)
        try b.target(a, size: size)
        var samples = [UInt64](repeating: 0, count: count)
        for i in 0..<(warmup + count) {
            let t0 = nowNs()
            try a.send()
            if !echo {
                _ = try b.receive()
                try b.send()
            }
            _ = try a.receive()
            if i >= warmup { samples[i - warmup] = nowNs() - t0 }
        }
        samples.sort()
        let us = { (ns: UInt64) in Double(ns) / 1000 }
        print("\(us(samples[count / 2])) \(us(samples[min(count - 1, count * 99 / 100)]))")
    }

    /// One publisher, one subscriber, `count` messages of `size` bytes as fast as the publisher
    /// can write: prints `MB/s arrived` counted at the subscriber (1 MB = 10^6 bytes).
    static func throughput(_ proto: Proto, port: UInt16, tls: Bool, count: Int, size: Int) throws(BenchError) {
        let pid = getpid()
        let sub = try connectPeer(proto, port: port, tls: tls, name: "s\(pid)")
        let pub = try connectPeer(proto, port: port, tls: tls, name: "p\(pid)")
        try pub.target(sub, size: size)
        try sub.target(pub, size: size)
        sub.sock.setReadTimeout(ms: 1500) // the end: nothing more for 1.5 s (the drops)
        let start = nowNs()
        let result = Handoff(value: sub)
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var arrived = 0
        nonisolated(unsafe) var last = start
        let thread = Thread {
            let s = result.value
            while arrived < count {
                do { _ = try s.receive() } catch { break }
                arrived += 1
                last = nowNs()
            }
            done.signal()
        }
        thread.start()
        for i in 0..<count {
            try pub.send()
            if i & 15 == 0 { try pub.drain() }
        }
        done.wait()
        let seconds = Double(last - start) / 1e9
        print("\(Double(arrived * size) / seconds / 1e6) \(arrived)")
    }

    /// Opens `count` connections (TLS handshake, upgrade, authentication or MQTT CONNECT), says
    /// `ready`, then sleeps until killed: the server's idle memory per connection.
    static func hold(_ proto: Proto, port: UInt16, tls: Bool, count: Int) throws(BenchError) {
        raiseFileLimit()
        let pid = getpid()
        var peers: [Peer] = []
        peers.reserveCapacity(count)
        for i in 0..<count { peers.append(try connectPeer(proto, port: port, tls: tls, name: "h\(pid)-\(i)")) }
        print("ready \(peers.count)")
        fflush(stdout)
        while true { sleep(3600) }
    }
}

/// A minimal Thread on pthreads (the bench keeps Foundation out of the client path).
final class Thread: @unchecked Sendable {
    private let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
    func start() {
        var t = pthread_t()
        let box = Unmanaged.passRetained(self).toOpaque()
        pthread_create(&t, nil, { p in
            let me = Unmanaged<Thread>.fromOpaque(p!).takeRetainedValue()
            me.body()
            return nil
        }, box)
        pthread_detach(t)
    }
}
