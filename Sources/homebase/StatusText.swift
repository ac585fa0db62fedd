import HomebaseAgent

/// `homebase status` for people.
enum StatusText {
    static func render(_ s: HostStatus, nowMs: Int64) -> String {
        var lines = ["device: \(s.device.key) (\(s.device.name))"]
        if let l = s.live, l.running {
            lines.append("agent: running (pid \(l.pid)), relay \(l.relay): \(l.link)")
            lines.append("requests: \(l.activeRequests) active, \(l.queuedRequests) queued")
            if !l.outcomes.isEmpty {
                lines.append("since start: " + l.outcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
            }
            if let r = l.refused { lines.append(r.line) }
            if let s = l.sleep { lines.append("sleep: " + s) }
            if let s = l.replyShaping { lines.append("reply shaping: " + s) }
        } else {
            lines.append("agent: not running")
        }
        if s.runtimes.isEmpty { lines.append("runtimes: none (homebase runtime add URL)") }
        for r in s.runtimes {
            lines.append("runtime: \(r.url) \(r.kind) \(r.available ? "available" : "UNAVAILABLE")"
                + (r.lastError.map { " (\($0))" } ?? ""))
            lines.append("  models: " + (r.models.isEmpty ? "none" : r.models.joined(separator: ", ")))
            if let l = s.live, l.running, let u = l.runtimeLoad?[r.url] {
                lines.append("  load: \(u.inFlight) in flight" + (u.limit > 0 ? " of \(u.limit)" : "") + ", \(u.served) served since start"
                             + (u.skipped ? "; SKIPPED after a failure until it verifies again" : ""))
            }
        }
        if let a = s.lastAdvert {
            lines.append("last advert: sequence \(a.sequence), \(a.models) model(s), \(max(0, nowMs - a.sentMs) / 1000) s ago")
        } else {
            lines.append("last advert: none yet")
        }
        if let a = s.account { lines.append(account(a, rosterVersion: s.rosterVersion)) }
        lines.append("roster version \(s.rosterVersion), siblings: \(s.siblings.count)")
        for d in s.siblings { lines.append("  \(d.key) (\(d.name))") }
        if let p = s.pairing { lines.append(p.line(nowMs: nowMs)) }
        lines.append("grants: \(s.grants.count)")
        for g in s.grants {
            lines.append("  \(g.id) to \(g.grantee.prefix(16))… \(g.revoked ? "revoked" : "") [\(g.models.joined(separator: ", "))]")
        }
        if !s.skippedRows.isEmpty {
            lines.append("skipped rows: \(s.skippedRows.count) (stored by an older version; unreadable now, left in the files)")
            for r in s.skippedRows { lines.append("  " + r.line) }
        }
        return lines.joined(separator: "\n")
    }

    static func account(_ a: HostStatus.Account, rosterVersion: UInt64) -> String {
        let key = "account: \(a.key.prefix(16))…"
        if a.holdsKey { return key + " (this Homebase holds the account key and signs the roster)" }
        guard a.listed else {
            return key + ": REMOVED from the account (roster \(rosterVersion) does not list this Homebase); it serves no siblings"
                + " (to rejoin, `homebase pair CODE` with a code from the account's first Homebase)"
        }
        let head = a.head.map { "\"\($0.name)\" \($0.key.prefix(16))…" } ?? "the account's first Homebase"
        return key + " (joined; the roster is signed on \(head))"
    }
}
