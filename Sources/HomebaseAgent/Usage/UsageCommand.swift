import Basics
import Foundation
import Wire

/// `homebase grants usage [--json]`: per grantee device (with its grants) and per own device,
/// requests and tokens in/out by UTC day and model, as the engine reported them. Counts only:
/// no prompt or answer text is ever stored.
package enum UsageCommand {
    package struct Report: Codable, Equatable {
        package struct Requester: Codable, Equatable {
            var device: String
            var name: String
            /// A device of this account (false: another account's, under grants).
            var own: Bool
            var grants: [String]
            /// The budgets of its grants in force (`200000/day`), and tokens used in each's period.
            var budgets: [Budget]
            var rows: [UsageRow]
        }
        package struct Budget: Codable, Equatable {
            var grant: String
            var budget: String
            var used: Int64
        }
        var requesters: [Requester]
    }

    package static func report(store: HostStore, nowMs: Int64) throws(HomebaseError) -> Report {
        let rows = try store.usage()
        let devices = try store.devices()
        let grants = try store.grants()
        var names: [String: String] = [:]
        for d in devices { names[d.record.signingKey.hex] = d.record.name }
        var byGrantee: [String: [GrantRecord]] = [:]
        for g in grants { byGrantee[g.grantee.signingKey.hex, default: []].append(g) }
        let keys = Set(rows.map(\.requester)).union(byGrantee.keys).sorted()
        var out: [Report.Requester] = []
        for key in keys {
            let held = byGrantee[key] ?? []
            let own = rows.first { $0.requester == key }?.own ?? held.isEmpty
            var budgets: [Report.Budget] = []
            for g in held where g.isActive(nowMs: nowMs) {
                guard let b = g.budget else { continue }
                let used = try store.tokensUsed(by: g.grantee.signingKey, since: b.firstDay(nowMs: nowMs))
                budgets.append(.init(grant: hex(g.grantID.bytes), budget: b.description, used: used))
            }
            out.append(.init(device: key, name: names[key] ?? held.first?.grantee.name ?? "", own: own,
                             grants: held.map { hex($0.grantID.bytes) }, budgets: budgets,
                             rows: rows.filter { $0.requester == key }))
        }
        return Report(requesters: out)
    }

    /// What `homebase grants usage [--json]` prints.
    package static func text(json: Bool, store: HostStore) throws -> String {
        let r = try report(store: store, nowMs: nowMs())
        if json {
            let e = JSONEncoder()
            e.outputFormatting = [.prettyPrinted, .sortedKeys]
            return String(decoding: try e.encode(r), as: UTF8.self)
        }
        if r.requesters.isEmpty { return "no usage yet" }
        var lines: [String] = []
        for q in r.requesters {
            let who = q.own ? "own device" : "grant " + (q.grants.isEmpty ? "?" : q.grants.joined(separator: ", "))
            lines.append("\(who): \(q.device.prefix(16))… (\(Printable.escape(q.name)))")
            for b in q.budgets { lines.append("  budget \(b.budget) (grant \(b.grant.prefix(8))…): \(b.used) used this period") }
            if q.rows.isEmpty { lines.append("  no requests yet") }
            for row in q.rows {
                lines.append("  \(row.day)  \(Printable.escape(row.model))  \(row.requests) request\(row.requests == 1 ? "" : "s")  "
                             + "\(row.tokensIn) in  \(row.tokensOut) out")
            }
        }
        return lines.joined(separator: "\n")
    }
}
