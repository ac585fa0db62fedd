// Router.provider(for:) timed per call for each route shape, on the guest's real SQLite store
// (settings re-read at every call, nothing cached: the routing contract).
import BenchSupport
import GuestAgent
import Inference
import Routing

struct DecisionRow {
    let shape: String
    let reason: String
    var micros = Samples()
    var resolveOnly = Samples()
}

enum Decisions {
    static func measure(_ guest: BenchGuest, calls: Int) throws -> [DecisionRow] {
        let s = guest.context.settings
        let router = guest.context.router
        let request = ChatRequest(model: "default", messages: [.init(role: .user, content: "hi")])
        let tools = ChatRequest(model: "default", messages: [.init(role: .user, content: "hi")],
                                tools: [ToolDefinition(name: "t", description: "", parametersJSON: "{}")])
        // Each case: how to set the settings, and the request.
        let cases: [(String, () throws -> Void, ChatRequest)] = [
            ("own Homebase (external, Ollama arm, fresh advert)", {
                _ = try s.set(.modelSource, "external"); _ = try s.set(.ollamaModel, "tiny") }, request),
            ("on-device (model source on-device)", { _ = try s.set(.modelSource, "on-device") }, request),
            ("radio never set (derived: Ollama arm, own Homebase)", { try s.unset(.modelSource) }, request),
            ("request with tools (on-device, never the wire)", { _ = try s.set(.modelSource, "external") }, tools),
        ]
        var rows: [DecisionRow] = []
        for (name, prepare, req) in cases {
            try prepare()
            var row = DecisionRow(shape: name, reason: router.provider(for: req).decision.reason)
            for _ in 0..<100 { _ = router.provider(for: req) }  // warm-up
            for _ in 0..<calls {
                let t0 = ContinuousClock.now
                let p = router.provider(for: req)
                let t1 = ContinuousClock.now
                _ = router.resolve()
                let t2 = ContinuousClock.now
                if p.decision.reason.isEmpty { Swift.print("") }  // keeps the call
                row.micros.add(ms(t1 - t0) * 1000)
                row.resolveOnly.add(ms(t2 - t1) * 1000)
            }
            rows.append(row)
        }
        _ = try s.set(.modelSource, "external")
        return rows
    }

    static func print(_ rows: [DecisionRow]) {
        Swift.print("""
            ### Routing decision

            `Router.provider(for:)` = `resolve()` (settings read from SQLite, the own advert and its \
            freshness gate, key ring, local endpoint file) + building the provider, timed per call on \
            the guest's real store; \(rows.first?.micros.count ?? 0) calls per shape after 100 warm-up calls. \
            "resolve only" times `resolve()` alone, the same number of calls, interleaved.

            | shape | provider(for:) p50 µs | p99 µs | max µs | resolve only p50 µs | p99 µs | decision reason |
            |---|---:|---:|---:|---:|---:|---|
            """)
        for r in rows {
            Swift.print("| \(r.shape) | \(fmt(r.micros.p50, 1)) | \(fmt(r.micros.p99, 1)) | \(fmt(r.micros.max, 0)) "
                        + "| \(fmt(r.resolveOnly.p50, 1)) | \(fmt(r.resolveOnly.p99, 1)) | \(r.reason) |")
        }
        Swift.print("")
    }
}
