import Foundation

/// The markdown table of one `bench-relay` run: medians of the runs, with the spread.
struct Report {
    let orchestrator: Orchestrator
    let cases: [Orchestrator.Case]
    let latency: [String: [[Double]]]
    let throughput: [String: [[Double]]]
    let memory: [String: [[Double]]]
    let loads: (String, String)

    func markdown() -> String {
        let o = orchestrator
        var t = "### Relay benchmark (`make bench-relay`)\n\n"
        t += "\(Date()) · \(ProcessInfo.processInfo.activeProcessorCount) vCPU · \(cpuModel()) · Linux \(kernel()) · "
        t += "\(versions()) · load average \(loads.0) at start, \(loads.1) at end · median of \(o.runs) runs [min-max]\n\n"
        t += "Round trip, \(o.size) B, A → server → B → server → A (echo: A → server → A), \(o.count) timed after \(o.warmup) warm-up, µs:\n\n"
        t += "| path | pinned p50 | pinned p99 | unpinned p50 | unpinned p99 |\n|---|---:|---:|---:|---:|\n"
        for c in cases {
            let p = latency["\(c.label)|true"] ?? [], u = latency["\(c.label)|false"] ?? []
            t += "| \(c.label) | \(spread(p.map { $0[0] })) | \(one(p.map { $0[1] })) | \(spread(u.map { $0[0] })) | \(one(u.map { $0[1] })) |\n"
        }
        t += "\nThroughput, \(o.throughputSize / 1024) KiB messages, one publisher to one subscriber, \(o.throughputCount) sent, counted at the subscriber (unpinned):\n\n"
        t += "| path | MB/s | arrived (worst run) |\n|---|---:|---:|\n"
        for c in cases where !c.echo {
            let r = throughput[c.label] ?? []
            let worst = r.map { Int($0[1]) }.min() ?? 0
            t += "| \(c.label) | \(spread(r.map { $0[0] })) | \(worst) of \(o.throughputCount) |\n"
        }
        let relayTLS = median((throughput["**homebase-relay** over TLS"] ?? []).map { $0[0] })
        let floorTLS = median((throughput["TLS floor: raw OpenSSL forward A→S→B→S→A"] ?? []).map { $0[0] })
        let mqttTLS = median((throughput["Mosquitto QoS 0 over TLS"] ?? []).map { $0[0] })
        if relayTLS.isFinite, floorTLS.isFinite, mqttTLS.isFinite {
            t += "\nOver TLS the relay moves \(Int((100 * relayTLS / floorTLS).rounded()))% of the TLS floor's MB/s and "
                + String(format: "%.2f", relayTLS / mqttTLS) + "× Mosquitto's (medians).\n"
        }
        if !memory.isEmpty {
            let sources = (o.connections + connectionsPerSource - 1) / connectionsPerSource
            t += "\nResident memory per idle connection, \(o.connections) connections (handshake done, authenticated or MQTT CONNECTed) "
                + "opened by one holding client on 4 threads from \(sources) loopback source address\(sources == 1 ? "" : "es") (127.0.0.2, ...), "
                + "RSS delta of the server / connections (kernel socket buffers excluded); handshakes/s: connections / time to open them all "
                + "(TCP + TLS + upgrade + auth); then one active pair's round trip (\(o.size) B, unpinned) while they are held:\n\n"
            t += "| server | KiB per connection | RSS before → after, KiB (median run) | handshakes/s | active pair p50 µs | p99 µs |\n"
            t += "|---|---:|---:|---:|---:|---:|\n"
            for (label, r) in memory.sorted(by: { $0.key < $1.key }) {
                let mid = r.sorted { $0[0] < $1[0] }[r.count / 2]
                t += "| \(label) | \(spread(r.map { $0[0] })) | \(Int(mid[1])) → \(Int(mid[2])) | \(spread(r.map { $0[3] })) "
                    + "| \(spread(r.map { $0[4] })) | \(one(r.map { $0[5] })) |\n"
            }
        }
        return t
    }

    private func median(_ v: [Double]) -> Double { v.isEmpty ? .nan : v.sorted()[v.count / 2] }
    private func fmt(_ x: Double) -> String { x >= 100 ? "\(Int(x.rounded()))" : String(format: "%.1f", x) }
    private func one(_ v: [Double]) -> String { v.isEmpty ? "-" : fmt(median(v)) }
    private func spread(_ v: [Double]) -> String {
        v.isEmpty ? "-" : "\(fmt(median(v))) [\(fmt(v.min()!))-\(fmt(v.max()!))]"
    }

    private func cpuModel() -> String {
        let s = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let line = s.split(separator: "\n").first { $0.hasPrefix("model name") } ?? ""
        return line.split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "?"
    }
    private func kernel() -> String { ((try? run("/usr/bin/uname", ["-r"])) ?? "?").trimmingCharacters(in: .whitespacesAndNewlines) }
    private func versions() -> String {
        let nats = ((try? run("/usr/sbin/nats-server", ["--version"])) ?? "nats-server ?").trimmingCharacters(in: .whitespacesAndNewlines)
        let mq = (try? run("/usr/bin/dpkg-query", ["-W", "-f=${Version}", "mosquitto"])) ?? "?"
        let ssl = (try? run("/usr/bin/openssl", ["version"]))?.split(separator: " ").prefix(2).joined(separator: " ") ?? "?"
        return "Mosquitto \(mq), \(nats), \(ssl)"
    }
}
