import Basics
import Foundation

/// A grant's token budget (`homebase share --tokens 200k/day`): prompt and completion tokens as
/// the engine reports them, counted at this Homebase per grantee device over the current UTC
/// day or month. Pure arithmetic: the counting is `HostStore+Usage`.
public struct TokenBudget: Sendable, Equatable, CustomStringConvertible {
    public enum Period: String, Sendable, Equatable { case day, month }

    public var tokens: Int64
    public var period: Period

    public init(tokens: Int64, period: Period) { self.tokens = tokens; self.period = period }

    /// `200k/day`, `5m/month` (the count grammar of `Basics.parseCount`).
    public static func parse(_ text: String) -> TokenBudget? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let period = Period(rawValue: String(parts[1])),
              let n = parseCount(parts[0]), n > 0 else { return nil }
        return TokenBudget(tokens: n, period: period)
    }

    /// The stored form: `200000/day`.
    public var description: String { "\(tokens)/\(period.rawValue)" }

    /// The first UTC day (`yyyy-mm-dd`) of the period holding `nowMs`: usage rows from it on count.
    public func firstDay(nowMs: Int64) -> String {
        let d = UsageDay.utc(nowMs)
        return period == .day ? UsageDay.key(d) : UsageDay.key((d.year, d.month, 1))
    }

    /// When the period holding `nowMs` ends (Unix ms): the budget is whole again then.
    public func resetMs(nowMs: Int64) -> Int64 {
        let d = UsageDay.utc(nowMs)
        var c = DateComponents()
        c.timeZone = TimeZone(identifier: "UTC")
        c.year = d.year; c.month = d.month; c.day = period == .day ? d.day : 1
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = TimeZone(identifier: "UTC")!
        let start = cal.date(from: c)!
        let end = cal.date(byAdding: period == .day ? .day : .month, value: 1, to: start)!
        return Int64(end.timeIntervalSince1970 * 1000)
    }

    /// Tokens left after `used` (never below zero).
    public func remaining(used: Int64) -> Int64 { max(0, tokens - used) }

    /// A request is admitted while something is left: the one that crosses the line finishes
    /// (its size is known only after), the next is refused.
    public func admits(used: Int64) -> Bool { used < tokens }
}

/// Usage is kept by UTC day.
enum UsageDay {
    static func utc(_ ms: Int64) -> (year: Int, month: Int, day: Int) {
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = TimeZone(identifier: "UTC")!
        let c = cal.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: Double(ms) / 1000))
        return (c.year!, c.month!, c.day!)
    }

    static func key(_ d: (year: Int, month: Int, day: Int)) -> String {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(d.year)-\(two(d.month))-\(two(d.day))"
    }

    static func key(_ ms: Int64) -> String { key(utc(ms)) }
}

/// The budget verdict for one grantee: nil when a grant in force has no budget or any budget
/// has tokens left; else the refusal's words (the busy reason the friend's device shows).
enum BudgetCheck {
    static let reasonPrefix = "over the grant's token budget"

    static func refusal(_ budgets: [TokenBudget?], used: (TokenBudget) -> Int64, nowMs: Int64) -> String? {
        guard !budgets.isEmpty, !budgets.contains(where: { $0 == nil }) else { return nil }
        let all = budgets.compactMap { $0 }
        if all.contains(where: { $0.admits(used: used($0)) }) { return nil }
        let soonest = all.min { $0.resetMs(nowMs: nowMs) < $1.resetMs(nowMs: nowMs) }!
        let when = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(soonest.resetMs(nowMs: nowMs)) / 1000))
        return "\(reasonPrefix) (\(used(soonest)) of \(soonest.tokens) tokens this \(soonest.period.rawValue)); "
            + "more after \(when)"
    }
}
