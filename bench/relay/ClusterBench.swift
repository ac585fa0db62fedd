import Foundation
import NatsFixture

/// `bench-relay --cluster`: device → relay node A → NATS → relay node B → device beside the
/// single-node relay and NATS alone (publish on one nats-server, subscribe on another), and mail
/// publish-to-stored with R3 against the single node's SQLite mailbox. One run, one table.
struct ClusterBench {
    /// The run's settings (runs, counts, sizes; `connections`: idle devices held on one node, 0:
    /// not measured) and its client runner: the single-node bench's, with the cluster's defaults.
    var bench = Orchestrator(connections: 1_000, count: 1_000, warmup: 100, throughputCount: 2_000)
    var mailCount = 200

    static let natsUser = "relay", natsPassword = "bench-password"

    func main() throws {
        let o = bench
        let s = try o.servers()
        defer { s.stopAll() }
        let load0 = loadAverage()
        try startNats(s)
        try Self.natsPassword.write(toFile: s.dir + "/nats-password", atomically: true, encoding: .utf8)
        try s.start("relay", ServerSet.relayBinary, s.relayArguments(port: s.relayPort, tls: false, name: "relay") + Self.mailLimits,
                    port: s.relayPort)
        for i in 0..<2 {
            let port = s.clusterRelayPort(i)
            try s.start("relay-\(i + 1)", ServerSet.relayBinary,
                        s.relayArguments(port: port, tls: false, name: "relay-\(i + 1)") + clusterFlags(s, node: i), port: port)
        }
        setenv("BENCH_NATS_USER", Self.natsUser, 1)
        setenv("BENCH_NATS_PASSWORD", Self.natsPassword, 1)
        let a = s.clusterRelayPort(0), b = s.clusterRelayPort(1)
        let cases: [(label: String, proto: Proto, ports: [UInt16])] = [
            ("**cluster**: relay node A → NATS → relay node B", .relay, [a, b]),
            ("single-node relay", .relay, [s.relayPort, s.relayPort]),
            ("NATS alone: publish on nats-1, subscribe on nats-2", .nats, [s.natsClientPort(0), s.natsClientPort(1)]),
        ]
        // Mail before the live cases' warm-up would matter: the stream exists once the relays answer.
        let mails: [(label: String, port: UInt16)] = [("**cluster**, JetStream R3 (relay node A)", a), ("single node, SQLite mailbox", s.relayPort)]
        var lat: [String: [[Double]]] = [:], thr: [String: [[Double]]] = [:], mail: [String: [[Double]]] = [:]
        for r in 0..<o.runs {
            for c in cases {
                let v = try numbers(try o.client(["latency", c.proto.rawValue, "\(c.ports[0]):\(c.ports[1])", "plain", "pair",
                                                  "\(o.count)", "\(o.warmup)", "\(o.size)"], pinned: false), 2)
                lat[c.label, default: []].append(v)
                o.log("latency run \(r + 1) \(c.label): p50 \(v[0]) µs p99 \(v[1]) µs")
            }
            for c in cases {
                let v = try numbers(try o.client(["throughput", c.proto.rawValue, "\(c.ports[0]):\(c.ports[1])", "plain",
                                                  "\(o.throughputCount)", "\(o.throughputSize)"], pinned: false), 2)
                thr[c.label, default: []].append(v)
                o.log("throughput run \(r + 1) \(c.label): \(v[0]) MB/s, \(Int(v[1])) of \(o.throughputCount) arrived")
            }
            for m in mails {
                let v = try numbers(try o.client(["mail", "\(m.port)", "\(mailCount)", "\(mailCount / 10)", "\(o.size)"], pinned: false), 2)
                mail[m.label, default: []].append(v)
                o.log("mail run \(r + 1) \(m.label): p50 \(v[0]) µs p99 \(v[1]) µs")
            }
        }
        // Connections per node: a fresh node (cluster: its own name, on nats-1) holding `connections`
        // authenticated idle devices, against a fresh single node. After the rest: the held
        // devices' subscriptions and consumers would weigh on the rows above.
        let holds: [(label: String, flags: [String])] = [
            ("**cluster** node (on nats-1)", clusterFlags(s, node: 0, name: "relay-mem")), ("single node", Self.mailLimits)]
        var held: [String: [[Double]]] = [:]
        if o.connections > 0 {
            for r in 0..<o.runs {
                for h in holds {
                    let v = try o.memory(s, server: "relay", tls: false, relayFlags: h.flags)
                    held[h.label, default: []].append(v)
                    o.log("connections run \(r + 1) \(h.label): \(v[0]) KiB per connection, \(Int(v[3])) authentications/s, "
                          + "pair p50 \(v[4]) µs while held")
                }
            }
        }
        let med = { (vs: [[Double]], k: Int, f: String) -> String in
            let x = vs.map { $0[k] }.sorted()
            let fmt = { (d: Double) in String(format: f, d) }
            return x.count > 1 ? "\(fmt(x[x.count / 2])) (\(fmt(x.first!))-\(fmt(x.last!)))" : fmt(x[0])
        }
        var out = "### Cluster: \(o.runs) run(s), load average \(load0) before, \(loadAverage()) after (2 vCPUs, shared)\n\n"
        out += "| path | round trip p50 µs | p99 µs | throughput MB/s (\(o.throughputCount) × \(o.throughputSize / 1024) KiB) | arrived |\n|---|---|---|---|---|\n"
        for c in cases {
            out += "| \(c.label) | \(med(lat[c.label]!, 0, "%.0f")) | \(med(lat[c.label]!, 1, "%.0f")) | \(med(thr[c.label]!, 0, "%.1f")) | \(med(thr[c.label]!, 1, "%.0f")) |\n"
        }
        out += "\n| mail, send → `stored` (\(mailCount) mails, \(o.size) B, one sender, a fresh offline recipient each) | p50 µs | p99 µs |\n|---|---|---|\n"
        for m in mails { out += "| \(m.label) | \(med(mail[m.label]!, 0, "%.0f")) | \(med(mail[m.label]!, 1, "%.0f")) |\n" }
        if o.connections > 0 {
            out += "\n| \(o.connections) idle devices held on one node (plain WebSocket, authenticated) | KiB per connection | "
                + "authentications/s | round trip of one active pair while held, p50 µs | p99 µs |\n|---|---|---|---|---|\n"
            for h in holds {
                let v = held[h.label]!
                out += "| \(h.label) | \(med(v, 0, "%.1f")) | \(med(v, 3, "%.0f")) | \(med(v, 4, "%.0f")) | \(med(v, 5, "%.0f")) |\n"
            }
        }
        out += "\nRound trip: \(o.count) after \(o.warmup) warm-up, \(o.size) B, unpinned. Medians of \(o.runs) runs (range).\n"
        print(out)
    }

    /// The mail quotas lifted for one sender on 127.0.0.1 (the cluster enforces the per-sender ones
    /// too; its reads before each publish still run).
    static let mailLimits = ["--sender-mail-frames", "100000000", "--ip-mail-frames", "100000000",
                             "--sender-mail-bytes", "100000000000", "--ip-mail-bytes", "100000000000"]

    func clusterFlags(_ s: ServerSet, node i: Int, name: String? = nil) -> [String] {
        let own = [i] + [0, 1, 2].filter { $0 != i }
        return ["--cluster-nats", own.map { "nats://127.0.0.1:\(s.natsClientPort($0))" }.joined(separator: ","),
                "--cluster-node-name", name ?? "relay-\(i + 1)", "--cluster-nats-user", Self.natsUser,
                "--cluster-nats-password-file", s.dir + "/nats-password"] + Self.mailLimits
    }

    /// Three nats-servers, one cluster, JetStream: the tests' configuration (`NatsConfig`).
    func startNats(_ s: ServerSet) throws {
        for i in 0..<3 {
            let dir = s.dir + "/nats-\(i + 1)"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            let conf = NatsConfig(name: "n\(i + 1)", clientPort: Int(s.natsClientPort(i)), clusterPort: Int(s.natsClusterPort(i)),
                                  monitorPort: Int(s.natsMonitorPort(i)), storeDirectory: dir + "/js",
                                  routePorts: [0, 1, 2].filter { $0 != i }.map { Int(s.natsClusterPort($0)) },
                                  user: Self.natsUser, password: Self.natsPassword, clusterName: "homebase-bench",
                                  routePassword: "route-password", systemPassword: "sys-password")
            try conf.text.write(toFile: dir + "/nats.conf", atomically: true, encoding: .utf8)
            try s.start("nats-\(i + 1)", NatsConfig.binary, ["-c", dir + "/nats.conf"], port: s.natsClientPort(i))
        }
        for i in 0..<3 { try waitHealthy(s.natsMonitorPort(i)) }
    }

    /// JetStream ready: the monitor's /healthz says 200 once the meta group has a leader.
    func waitHealthy(_ port: UInt16) throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let sock = try? Sock(port: port, tls: false) {
                try? sock.write(Array(NatsConfig.healthRequest.utf8))
                if let line = try? sock.readLine(), line.contains("200") { return }
            }
            usleep(100_000)
        }
        throw BenchError.protocolError("nats-server monitor \(port): JetStream not ready after 30 s")
    }
}

extension ServerSet {
    // The cluster section's ports, after the others (base + 11 ...).
    func clusterRelayPort(_ i: Int) -> UInt16 { base + 11 + UInt16(i) }
    func natsClientPort(_ i: Int) -> UInt16 { base + 13 + UInt16(i) }
    func natsClusterPort(_ i: Int) -> UInt16 { base + 16 + UInt16(i) }
    func natsMonitorPort(_ i: Int) -> UInt16 { base + 19 + UInt16(i) }
}
