@testable import Courier
import Signing
import Testing

// The pure bookkeeping behind the per-sender part budgets and the introduction rate.
struct BudgetTests {
    let own = SigningKey.generate().publicKey
    let grantees = (0..<4).map { _ in SigningKey.generate().publicKey }

    @Test func granteesTogetherCannotTakeTheOwnDevicesRoom() {
        var budgets = PartBudgets()
        budgets.perSender = .init(messages: 2, bytes: 100)
        budgets.ownDevices = .init(messages: 2, bytes: 100)
        budgets.others = .init(messages: 3, bytes: 100)
        var ledger = PartLedger(budgets: budgets)
        for g in grantees.prefix(3) {
            #expect(ledger.admits(g, own: false, bytes: 10))
            ledger.reserve(g, own: false, bytes: 10)
        }
        #expect(!ledger.admits(grantees[3], own: false, bytes: 10))  // the others' class is full
        #expect(ledger.admits(own, own: true, bytes: 10))  // the account's own devices are not
        ledger.reserve(own, own: true, bytes: 10)
        ledger.reserve(own, own: true, bytes: 10)
        #expect(!ledger.admits(own, own: true, bytes: 10))  // per sender: two
        ledger.release(grantees[0], own: false, bytes: 10)
        #expect(ledger.admits(grantees[3], own: false, bytes: 10))
        #expect(!ledger.admits(grantees[3], own: false, bytes: 101))  // bytes count too
    }

    @Test func introductionsAreLimitedPerSenderPerMinute() {
        var limiter = IntroductionLimiter(perMinute: 2, tracked: 2)
        let a = grantees[0], b = grantees[1]
        let outcomes = [limiter.admit(a, nowMs: 0), limiter.admit(a, nowMs: 1), limiter.admit(a, nowMs: 2),
                        limiter.admit(b, nowMs: 3),  // another sender has its own count
                        limiter.admit(a, nowMs: 60_000)]  // a new minute
        #expect(outcomes == [true, true, false, true, true])
    }
}
