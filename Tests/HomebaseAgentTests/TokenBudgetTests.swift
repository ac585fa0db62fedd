@testable import HomebaseAgent
import Sealing
import Signing
import Testing

/// The budget arithmetic alone (#21): parsing, the UTC period a budget counts, when it renews,
/// and the verdict over several grants (pure; the counting is the store's).
@Suite struct TokenBudgetTests {
    /// 2026-12-02T11:00:00Z.
    let now: Int64 = 1_796_209_200_000

    @Test func parsesDaysAndMonths() {
        #expect(TokenBudget.parse("200k/day") == TokenBudget(tokens: 200_000, period: .day))
        #expect(TokenBudget.parse("5m/month") == TokenBudget(tokens: 5_000_000, period: .month))
        #expect(TokenBudget.parse("300/day")?.description == "300/day")
        for bad in ["200k", "0/day", "200k/week", "/day", "200k/day/x", "-1/day"] { #expect(TokenBudget.parse(bad) == nil, "\(bad)") }
    }

    @Test func periodsAreUTCDaysAndMonths() {
        #expect(UsageDay.key(now) == "2026-12-02")
        #expect(TokenBudget(tokens: 1, period: .day).firstDay(nowMs: now) == "2026-12-02")
        #expect(TokenBudget(tokens: 1, period: .month).firstDay(nowMs: now) == "2026-12-01")
        #expect(TokenBudget(tokens: 1, period: .day).resetMs(nowMs: now) == 1_796_256_000_000)  // 2026-12-03T00:00Z
        #expect(TokenBudget(tokens: 1, period: .month).resetMs(nowMs: now) == 1_798_761_600_000)  // 2027-01-01T00:00Z
    }

    @Test func theRequestThatCrossesFinishesTheNextIsRefused() {
        let b = TokenBudget(tokens: 100, period: .day)
        #expect(b.admits(used: 0))
        #expect(b.admits(used: 99))
        #expect(!b.admits(used: 100))
        #expect(!b.admits(used: 180))
        #expect(b.remaining(used: 30) == 70)
        #expect(b.remaining(used: 180) == 0)
    }

    @Test func anyGrantWithRoomOrWithoutBudgetAdmits() {
        let small = TokenBudget(tokens: 10, period: .day), big = TokenBudget(tokens: 1000, period: .month)
        let used: (TokenBudget) -> Int64 = { $0 == small ? 50 : 50 }
        #expect(BudgetCheck.refusal([], used: used, nowMs: now) == nil)  // no grant: admission says revoked, not us
        #expect(BudgetCheck.refusal([small, nil], used: used, nowMs: now) == nil)
        #expect(BudgetCheck.refusal([small, big], used: used, nowMs: now) == nil)
        let why = BudgetCheck.refusal([small], used: used, nowMs: now)
        #expect(why == "over the grant's token budget (50 of 10 tokens this day); more after 2026-12-03T00:00:00Z")
    }
}
