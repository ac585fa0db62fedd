/// The usage report as Prometheus text (`homebase status --serve` answers it at `/metrics`):
/// the figures of `homebase grants usage`, summed over days, per requesting device and model,
/// and each budget in force with its use in the period. Counts only, never text; device names
/// are the roster's and the grants' (label values escaped).
package enum UsageMetrics {
    package static func text(_ report: UsageCommand.Report, load: [String: HostStatus.RuntimeUse] = [:]) -> String {
        var out = ""
        func family(_ name: String, _ help: String, _ type: String) { out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n" }
        let counters: [(String, String, KeyPath<UsageRow, Int64>)] = [
            ("homebase_usage_requests_total", "requests the engine answered, by requesting device and model", \.requests),
            ("homebase_usage_tokens_in_total", "prompt tokens as the engine reported them", \.tokensIn),
            ("homebase_usage_tokens_out_total", "completion tokens as the engine reported them", \.tokensOut),
        ]
        for (name, help, field) in counters {
            family(name, help, "counter")
            for r in report.requesters {
                var byModel: [String: Int64] = [:]
                for row in r.rows { byModel[row.model, default: 0] += row[keyPath: field] }
                for (model, n) in byModel.sorted(by: { $0.key < $1.key }) {
                    out += "\(name){\(labels(r, model: model))} \(n)\n"
                }
            }
        }
        family("homebase_budget_tokens", "a grant's token budget in its period", "gauge")
        family("homebase_budget_used_tokens", "tokens the grantee used in the budget's period", "gauge")
        for r in report.requesters {
            for b in r.budgets {
                let l = "grant=\"\(escape(String(b.grant.prefix(16))))\",budget=\"\(escape(b.budget))\",device=\"\(escape(String(r.device.prefix(16))))\""
                out += "homebase_budget_tokens{\(l)} \(b.budget.split(separator: "/").first.map(String.init) ?? "0")\n"
                out += "homebase_budget_used_tokens{\(l)} \(b.used)\n"
            }
        }
        if !load.isEmpty {
            family("homebase_runtime_in_flight", "requests at each runtime now", "gauge")
            for (url, u) in load.sorted(by: { $0.key < $1.key }) { out += "homebase_runtime_in_flight{runtime=\"\(escape(url))\"} \(u.inFlight)\n" }
            family("homebase_runtime_served_total", "requests each runtime served since the agent started", "counter")
            for (url, u) in load.sorted(by: { $0.key < $1.key }) { out += "homebase_runtime_served_total{runtime=\"\(escape(url))\"} \(u.served)\n" }
        }
        return out
    }

    private static func labels(_ r: UsageCommand.Report.Requester, model: String) -> String {
        "device=\"\(escape(String(r.device.prefix(16))))\",name=\"\(escape(r.name))\",own=\"\(r.own)\",model=\"\(escape(model))\""
    }

    /// Prometheus label escaping: backslash, double quote, new line.
    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}
