import Foundation

/// `bench-relay` with no command: every server, every case, `runs` times, then a markdown table.
struct Orchestrator {
    var runs = 3
    var connections = 10_000
    var count = 5_000
    var warmup = 500
    var size = 256
    var throughputCount = 20_000
    var throughputSize = 16 * 1024
    var skipMemory = false
    /// Only the memory section (a 100,000-connection run: `--connections 100000 --memory-only --runs 1`).
    var memoryOnlyRun = false

    struct Case { let label: String; let proto: Proto; let port: UInt16; let tls: Bool; var echo = false }

    func main() throws {
        let s = try servers()
        defer { s.stopAll() }
        let load0 = loadAverage()
        if !memoryOnlyRun { try s.startAll() }
        let cases = [
            Case(label: "raw TCP echo (the floor)", proto: .raw, port: s.echoPort, tls: false, echo: true),
            Case(label: "raw TCP forward A→S→B→S→A", proto: .raw, port: s.forwardPort, tls: false),
            Case(label: "TLS floor: raw OpenSSL forward A→S→B→S→A", proto: .raw, port: s.forwardTLSPort, tls: true),
            Case(label: "**homebase-relay**, WebSocket + relay frames", proto: .relay, port: s.relayPort, tls: false),
            Case(label: "**homebase-relay** over TLS", proto: .relay, port: s.relayTLSPort, tls: true),
            Case(label: "Mosquitto QoS 0", proto: .mqtt, port: s.mqttPort, tls: false),
            Case(label: "Mosquitto QoS 0 over TLS", proto: .mqtt, port: s.mqttTLSPort, tls: true),
            Case(label: "nats-server", proto: .nats, port: s.natsPort, tls: false),
        ]
        // Latency: runs interleaved across cases, so a burst of load on the machine hits all of them.
        var lat: [String: [[Double]]] = [:] // "label|pinned" -> per run [p50, p99]
        for pinned in [true, false] where !memoryOnlyRun {
            try s.pin(pinned)
            for r in 0..<runs {
                for c in cases {
                    let out = try client(["latency", c.proto.rawValue, "\(c.port)", c.tls ? "tls" : "plain", c.echo ? "echo" : "pair",
                                          "\(count)", "\(warmup)", "\(size)"], pinned: pinned)
                    let v = try numbers(out, 2)
                    lat["\(c.label)|\(pinned)", default: []].append(v)
                    log("latency \(pinned ? "pinned" : "unpinned") run \(r + 1) \(c.label): p50 \(v[0]) µs p99 \(v[1]) µs")
                }
            }
        }
        if !memoryOnlyRun { try s.pin(false) }
        // Throughput: unpinned (publisher and subscriber each need a core); the echo row does not apply.
        var thr: [String: [[Double]]] = [:]
        for r in 0..<(memoryOnlyRun ? 0 : runs) {
            for c in cases where !c.echo {
                let out = try client(["throughput", c.proto.rawValue, "\(c.port)", c.tls ? "tls" : "plain",
                                      "\(throughputCount)", "\(throughputSize)"], pinned: false)
                let v = try numbers(out, 2)
                thr[c.label, default: []].append(v)
                log("throughput run \(r + 1) \(c.label): \(v[0]) MB/s, \(Int(v[1])) of \(throughputCount) arrived")
            }
        }
        s.stopAll()
        var mem: [String: [[Double]]] = [:]
        if !skipMemory {
            for r in 0..<runs {
                for (label, name, tls) in [("**homebase-relay** over TLS", "relay", true), ("**homebase-relay** plain", "relay", false),
                                           ("Mosquitto over TLS (1,000 connections)", "mosquitto", true)] {
                    let v = try memory(s, server: name, tls: tls)
                    mem[label, default: []].append(v)
                    log("memory run \(r + 1) \(label): \(v[0]) KiB per connection (RSS \(Int(v[1])) -> \(Int(v[2])) KiB), "
                        + "\(Int(v[3])) handshakes/s, active pair p50 \(v[4]) µs p99 \(v[5]) µs while held")
                }
            }
        }
        print(Report(orchestrator: self, cases: cases, latency: lat, throughput: thr, memory: mem,
                     loads: (load0, loadAverage())).markdown())
    }

    /// The servers' set, with the file limit raised for `connections` held ones (the caller
    /// stops them all).
    func servers() throws -> ServerSet {
        raiseFileLimit(to: connections + 1_000)
        let s = try ServerSet()
        s.connections = connections
        return s
    }

    /// A client run, on vCPU 0 with the servers when pinned; its one line of output.
    func client(_ args: [String], pinned: Bool) throws -> String {
        // A hung client (a server that stopped answering) fails the run after 5 minutes, not never.
        let guarded = ["300", ServerSet.selfPath] + args
        return try pinned ? run("/usr/bin/taskset", ["-c", "0", "/usr/bin/timeout"] + guarded) : run("/usr/bin/timeout", guarded)
    }

    /// A fresh server, its RSS, `connections` idle connections opened by a holding client, its RSS
    /// again, then the round trip of one active pair while they are held:
    /// [KiB per connection, RSS before, RSS after, handshakes per second, pair p50 µs, pair p99 µs].
    /// `relayFlags`: added to the relay's command line (a cluster node's flags).
    func memory(_ s: ServerSet, server: String, tls: Bool, environment: [String: String] = [:],
                relayFlags: [String] = []) throws -> [Double] {
        let port: UInt16
        if server == "relay" {
            port = s.memoryRelayPort
            try s.start("mem", ServerSet.relayBinary, s.relayArguments(port: port, tls: tls, name: "mem-\(UUID().uuidString)") + relayFlags,
                        port: port, environment: environment)
        } else {
            port = s.memoryMQTTPort
            try s.start("mem", "/usr/sbin/mosquitto", ["-c", try s.mosquittoConfig(port: s.memoryMQTTPort + 1, tlsPort: port, name: "mem")], port: port)
        }
        defer { s.stop("mem") }
        usleep(300_000)
        guard let pid = s.pid("mem") else { throw BenchError.protocolError("no server") }
        let before = rssKiB(pid)
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: ServerSet.selfPath)
        // Mosquitto 2.0.11 stalled here after 1,500-3,800 TLS connections (handshakes stopped being
        // answered; not investigated): it gets 1,000, and BENCHMARKING.md's 2,000-client figure is quoted.
        let n = server == "relay" ? connections : min(connections, 1_000)
        holder.arguments = ["hold", server == "relay" ? "relay" : "mqtt", "\(port)", tls ? "tls" : "plain", "\(n)"]
        let out = Pipe()
        holder.standardOutput = out
        try holder.run()
        defer { holder.terminate(); holder.waitUntilExit() }
        var line = Data()
        while true {
            let d = out.fileHandleForReading.readData(ofLength: 1)
            if d.isEmpty || d == Data([10]) { break }
            line += d
        }
        let ready = String(decoding: line, as: UTF8.self)
        guard ready.hasPrefix("ready \(n) "), let seconds = Double(ready.split(separator: " ")[2]) else {
            throw BenchError.protocolError("holding client failed: \(ready)")
        }
        usleep(1_000_000)
        let after = rssKiB(pid)
        let proto = server == "relay" ? "relay" : "mqtt"
        let pair = try numbers(try client(["latency", proto, "\(port)", tls ? "tls" : "plain", "pair", "\(count)", "\(warmup)", "\(size)"],
                                          pinned: false), 2)
        return [Double(after - before) / Double(n), Double(before), Double(after), Double(n) / seconds, pair[0], pair[1]]
    }

    /// One memory measurement (`bench-relay memory relay|mosquitto tls|plain [KEY=VALUE ...]`),
    /// the server started with those environment variables: for trying allocator and OpenSSL settings.
    func memoryOnly(server: String, tls: Bool, environment: [String: String]) throws {
        let s = try servers()
        defer { s.stopAll() }
        for r in 0..<runs {
            let v = try memory(s, server: server, tls: tls, environment: environment)
            print("run \(r + 1): \(v[0]) KiB per connection (RSS \(Int(v[1])) -> \(Int(v[2])) KiB), \(Int(v[3])) handshakes/s, "
                  + "active pair p50 \(v[4]) µs p99 \(v[5]) µs while held")
        }
    }

    func log(_ s: String) { FileHandle.standardError.write(Data((s + "\n").utf8)) }
}

/// The first `n` numbers of a client's output line.
func numbers(_ line: String, _ n: Int) throws -> [Double] {
    let v = line.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Double($0) }
    guard v.count >= n else { throw BenchError.protocolError("client said: \(line)") }
    return v
}

func loadAverage() -> String {
    ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3).joined(separator: " ")
}
