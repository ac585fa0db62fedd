import Basics
import Dispatch
@preconcurrency import Glibc

/// Monotonic nanoseconds (`Basics.monotonicNanos`).
func nowNs() -> UInt64 { monotonicNanos() }

/// Lifts the fd limit to `need` (soft and, when privileged, hard), at least to the hard limit:
/// 100,000 connections need far more than the usual 1,024. Returns the soft limit now.
@discardableResult
func raiseFileLimit(to need: Int = 0) -> Int {
    var r = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &r)
    if need > 0, r.rlim_max < rlim_t(need) {
        var both = rlimit(rlim_cur: rlim_t(need), rlim_max: rlim_t(need))
        if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &both) == 0 { return need }
    }
    r.rlim_cur = r.rlim_max
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &r)
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &r)
    return Int(r.rlim_cur)
}

/// Connections per loopback source address: under the relay's per-address limit in the bench
/// (20,000) and the ephemeral port range (28,232).
let connectionsPerSource = 16_000

/// The source address of connection `i`: 127.0.0.2, then 127.0.0.3 after `connectionsPerSource`, ...
func sourceAddress(_ i: Int) -> String { "127.0.0.\(2 + i / connectionsPerSource)" }

/// Pass a non-Sendable value to the one other thread that uses it while this one waits.
struct Handoff<T>: @unchecked Sendable { let value: T }

enum Workloads {
    /// Round trips A -> server -> B -> server -> A (or A -> echo -> A): prints `p50 p99` in µs.
    /// `portB`: B on another server (the cluster section: relay node A → NATS → relay node B).
    static func latency(_ proto: Proto, port: UInt16, portB: UInt16? = nil, tls: Bool, echo: Bool, count: Int, warmup: Int, size: Int) throws(BenchError) {
        let pid = getpid()
        let a = try connectPeer(proto, port: port, tls: tls, name: "a\(pid)")
        let b = echo ? a : try connectPeer(proto, port: portB ?? port, tls: tls, name: "b\(pid)")
        try a.target(b, size: size)
        try b.target(a, size: size)
        if proto == .nats, portB != nil { try settle(a, b) }
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
    static func throughput(_ proto: Proto, port: UInt16, portB: UInt16? = nil, tls: Bool, count: Int, size: Int) throws(BenchError) {
        let pid = getpid()
        let sub = try connectPeer(proto, port: portB ?? port, tls: tls, name: "s\(pid)")
        let pub = try connectPeer(proto, port: port, tls: tls, name: "p\(pid)")
        try pub.target(sub, size: size)
        try sub.target(pub, size: size)
        if proto == .nats, portB != nil { try settle(pub, sub) }
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

    /// Opens `count` connections (TLS handshake, upgrade, authentication or MQTT CONNECT) on
    /// `threads` threads from source addresses 127.0.0.2, ... (`sourceAddress`), says `ready COUNT
    /// SECONDS`, then sleeps until killed: the server's idle memory per connection and its handshakes/s.
    static func hold(_ proto: Proto, port: UInt16, tls: Bool, count: Int, threads: Int = 4) throws(BenchError) {
        let limit = raiseFileLimit(to: count + 1_000)
        guard limit >= count + 50 else { throw .usage("open-file limit \(limit) is too low for \(count) connections (run as root or raise the hard limit)") }
        let pid = getpid()
        let held = Held(threads)
        let done = DispatchSemaphore(value: 0)
        let start = nowNs()
        for t in 0..<threads {
            Thread {
                var mine: [Peer] = []
                for i in stride(from: t, to: count, by: threads) {
                    do {
                        mine.append(try connectPeer(proto, port: port, tls: tls, name: "h\(pid)-\(i)", source: sourceAddress(i), bufferSize: 512))
                    } catch {
                        held.fail(t, "connection \(i) from \(sourceAddress(i)): \(error)")
                        break
                    }
                }
                held.keep(t, mine)
                done.signal()
            }.start()
        }
        for _ in 0..<threads { done.wait() }
        let seconds = Double(nowNs() - start) / 1e9
        if let failure = held.failure { throw .protocolError(failure) }
        print("ready \(held.count) \(seconds)")
        fflush(stdout)
        while true { sleep(3600) }
    }
}

/// The held connections, one slot per opening thread (each thread writes only its own; read
/// after all have signalled).
final class Held: @unchecked Sendable {
    private var slots: [[Peer]]
    private var failures: [String?]
    init(_ n: Int) { slots = Array(repeating: [], count: n); failures = Array(repeating: nil, count: n) }
    func keep(_ t: Int, _ peers: [Peer]) { slots[t] = peers }
    func fail(_ t: Int, _ why: String) { failures[t] = why }
    var count: Int { slots.reduce(0) { $0 + $1.count } }
    var failure: String? { failures.compactMap { $0 }.first }
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
