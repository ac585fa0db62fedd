/// Which runtime answers a request when several serve its model (#21): the one with the fewest
/// requests in flight here, earlier runtime first on a tie; a runtime that failed is skipped
/// until a verification after the failure passes; one at its concurrency limit is skipped too.
/// Pure state (the agent keeps it behind its lock).
struct RuntimeLoad: Sendable, Equatable {
    /// Requests in flight per runtime URL.
    private(set) var inFlight: [String: Int] = [:]
    /// Requests ever started per runtime URL since start (status; tests check both saw some).
    private(set) var served: [String: Int] = [:]
    /// Runtimes that failed, with when (Unix ms): skipped until verified after that.
    private(set) var failedAtMs: [String: Int64] = [:]

    /// The pure choice: least in flight among those not skipped and under their limit (0: none).
    static func pick(_ candidates: [String], inFlight: [String: Int], limit: (String) -> Int,
                     skipped: Set<String>) -> String? {
        var best: (url: String, load: Int)?
        for url in candidates where !skipped.contains(url) {
            let load = inFlight[url] ?? 0
            let cap = limit(url)
            if cap > 0 && load >= cap { continue }
            if best == nil || load < best!.load { best = (url, load) }
        }
        return best?.url
    }

    /// Picks and counts the request in; nil when every candidate is full. When every one failed,
    /// they are tried anyway (as a single runtime always was): skipping helps only with another to go to.
    mutating func take(_ candidates: [String], limit: (String) -> Int) -> String? {
        let skipped = allFailed(candidates) ? [] : Set(failedAtMs.keys)
        guard let url = Self.pick(candidates, inFlight: inFlight, limit: limit, skipped: skipped) else { return nil }
        inFlight[url, default: 0] += 1
        served[url, default: 0] += 1
        return url
    }

    /// Why `take` found nothing: every candidate failed (vs. every one full).
    func allFailed(_ candidates: [String]) -> Bool { candidates.allSatisfy { failedAtMs[$0] != nil } }

    mutating func release(_ url: String) {
        let left = (inFlight[url] ?? 1) - 1
        inFlight[url] = left > 0 ? left : nil
    }

    mutating func failed(_ url: String, nowMs: Int64) { failedAtMs[url] = max(failedAtMs[url] ?? 0, nowMs) }

    /// A verification that passed at `checkedMs` ends the skip of a failure before it.
    mutating func verified(_ url: String, checkedMs: Int64) {
        if let at = failedAtMs[url], checkedMs >= at { failedAtMs[url] = nil }
    }
}

/// Per-runtime concurrency limits (`homebase run --runtime-limit 2` or `URL=2,URL=4`): 0 is no
/// limit of its own (the Homebase's `max-concurrent` still holds).
public struct RuntimeLimits: Sendable, Equatable {
    public var all = 0
    public var byURL: [String: Int] = [:]

    public init(all: Int = 0, byURL: [String: Int] = [:]) { self.all = all; self.byURL = byURL }

    public func limit(_ url: String) -> Int { byURL[url] ?? all }

    /// `N`, or `URL=N` entries separated by commas (a bare `N` among them sets the rest).
    public static func parse(_ text: String) -> RuntimeLimits? {
        var l = RuntimeLimits()
        for part in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if let eq = part.lastIndex(of: "=") {
                guard let n = Int(part[part.index(after: eq)...]), n >= 0, eq != part.startIndex else { return nil }
                l.byURL[String(part[..<eq])] = n
            } else {
                guard let n = Int(part), n >= 0 else { return nil }
                l.all = n
            }
        }
        return l
    }
}
