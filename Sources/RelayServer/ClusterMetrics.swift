/// The cluster's counters and latencies on /metrics (only when the relay runs as a cluster).
struct ClusterMetrics {
    var livePublished = 0
    var liveDelivered = 0
    /// Live frames that came while their device joined (held until its auth-ok).
    var liveHeld = 0
    var noResponders = 0
    var claimsReplaced = 0
    var mailPublished = 0
    var mailDuplicate = 0
    var mailRefused = 0
    var mailFetched = 0
    var mailExpired = 0
    var mailAcked = 0
    /// Empty fetches while the consumer still held mail (fetched again, never queue-empty).
    var fetchRetried = 0
    /// Devices closed because this node's NATS link went down.
    var devicesClosedNatsDown = 0
    /// Publish → the stream's ack, summed (ms) and counted: the mean is sum / count.
    var publishMsSum = 0.0
    var publishCount = 0
    var natsState = "connected"
}

extension ClusterNode {
    func render() -> String {
        let m = metrics
        var out = ""
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(String, String)]) {
            out += "# HELP homebase_relay_cluster_\(name) \(help)\n# TYPE homebase_relay_cluster_\(name) \(type)\n"
            for (labels, v) in samples { out += "homebase_relay_cluster_\(name)\(labels.isEmpty ? "" : "{\(labels)}") \(v)\n" }
        }
        metric("nats_connected", "gauge", "1 while this node's NATS link is up.", [("node=\"\(node)\"", m.natsState == "connected" ? "1" : "0")])
        metric("devices", "gauge", "Devices this node holds (subscribed to their subjects).", [("", "\(devices.count)")])
        metric("mail_unacked", "gauge", "Mail handed to this node's devices, not acknowledged yet.",
               [("", "\(devices.values.reduce(0) { $0 + $1.acks.count })")])
        metric("live_total", "counter", "Live frames across nodes, by event.",
               [("event=\"published\"", "\(m.livePublished)"), ("event=\"delivered\"", "\(m.liveDelivered)"),
                ("event=\"no-responders\"", "\(m.noResponders)"), ("event=\"held-while-joining\"", "\(m.liveHeld)")])
        metric("replaced_total", "counter", "Connections replaced by the same key on another node.", [("", "\(m.claimsReplaced)")])
        metric("mail_total", "counter", "Mail through JetStream, by event.",
               [("event=\"stored\"", "\(m.mailPublished)"), ("event=\"duplicate\"", "\(m.mailDuplicate)"),
                ("event=\"refused\"", "\(m.mailRefused)"), ("event=\"delivered\"", "\(m.mailFetched)"),
                ("event=\"expired\"", "\(m.mailExpired)"), ("event=\"acked\"", "\(m.mailAcked)")])
        metric("fetch_retried_total", "counter", "Empty mail fetches while the consumer still held mail (fetched again).",
               [("", "\(m.fetchRetried)")])
        metric("closed_nats_down_total", "counter", "Devices closed because this node lost its NATS link.",
               [("", "\(m.devicesClosedNatsDown)")])
        metric("publish_ack_ms_sum", "counter", "Milliseconds from mail publish to the stream's ack (cap check included), summed.",
               [("", String(format3(m.publishMsSum)))])
        metric("publish_ack_count", "counter", "Mail publishes acknowledged by the stream.", [("", "\(m.publishCount)")])
        return out
    }
}

private func format3(_ v: Double) -> String {
    let scaled = Int64((v * 1000).rounded())
    let frac = String(scaled % 1000)
    return "\(scaled / 1000)." + String(repeating: "0", count: 3 - frac.count) + frac
}
