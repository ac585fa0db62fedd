import Testing
@testable import HomebaseAgent

/// `/metrics` carries `grants usage`'s figures (issue 21: "the same figures on /metrics").
@Suite struct UsageMetricsTests {
    @Test func usageIsSummedOverDaysPerDeviceAndModelWithBudgetsAndLoad() {
        let key = String(repeating: "ab", count: 32)
        let rows = [
            UsageRow(requester: key, own: false, model: "tiny", day: "2026-12-01", requests: 2, tokensIn: 10, tokensOut: 30),
            UsageRow(requester: key, own: false, model: "tiny", day: "2026-12-02", requests: 1, tokensIn: 5, tokensOut: 7),
        ]
        let friend = UsageCommand.Report.Requester(
            device: key, name: "bob \"the\" friend", own: false, grants: ["g1"],
            budgets: [.init(grant: "g1", budget: "60/day", used: 12)], rows: rows)
        let load = ["http://127.0.0.1:8080": HostStatus.RuntimeUse(inFlight: 1, served: 3, limit: 0, skipped: false)]
        let text = UsageMetrics.text(.init(requesters: [friend]), load: load)
        let labels = "device=\"\(key.prefix(16))\",name=\"bob \\\"the\\\" friend\",own=\"false\",model=\"tiny\""
        #expect(text.contains("homebase_usage_requests_total{\(labels)} 3\n"))
        #expect(text.contains("homebase_usage_tokens_in_total{\(labels)} 15\n"))
        #expect(text.contains("homebase_usage_tokens_out_total{\(labels)} 37\n"))
        #expect(text.contains("# TYPE homebase_budget_tokens gauge\n"))
        #expect(text.contains("homebase_budget_tokens{grant=\"g1\",budget=\"60/day\",device=\"\(key.prefix(16))\"} 60\n"))
        #expect(text.contains("homebase_budget_used_tokens{grant=\"g1\",budget=\"60/day\",device=\"\(key.prefix(16))\"} 12\n"))
        #expect(text.contains("homebase_runtime_in_flight{runtime=\"http://127.0.0.1:8080\"} 1\n"))
        // Every sample line is NAME{labels} VALUE; every family is typed.
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            #expect(line.split(separator: " ").last.flatMap { Int64($0) } != nil, "\(line)")
        }
    }
}
