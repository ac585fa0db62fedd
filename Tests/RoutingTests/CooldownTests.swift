import Routing
import Signing
import Testing
import Wire

/// Fixed cooldowns, as the guest's file would hold them (a TEST source).
struct FixedCooldowns: CooldownSource {
    var list: [Cooldown]
    func cooldown(of host: PublicKey, nowMs: Int64) -> Cooldown? {
        list.first { $0.host == host.hex && $0.untilMs > nowMs }
    }
}

@Suite struct CooldownTests {
    static let host = PublicKey(bytes: Bytes32.repeating(1).bytes)!

    /// A cooled-down own Homebase is skipped with the reason said; its advert is older than
    /// the cooldown, so it has not been heard from since.
    @Test func aCooledDownHomebaseRoutesOnDeviceAndSaysWhy() {
        let f = RouterBehaviourTests.ownFacts(age: 2 * minute)
        var router = f.router()
        let now = f.clock.nowMs()
        router.cooldowns = FixedCooldowns(list: [Cooldown(host: Self.host.hex, sinceMs: now - 1_000, untilMs: now + 59_000,
                                                          because: "timed out: accept")])
        let decision = router.resolve()
        #expect(decision.route.brain == .onDevice)
        #expect(decision.reason.contains("own Homebase cooled down since"), "\(decision.reason)")
        #expect(decision.reason.contains("because timed out: accept"), "\(decision.reason)")
    }

    /// Heard from after the cooldown began (a fresh advert), or the cooldown over: routed again.
    @Test func heardFromOrExpiredRoutesToTheHomebaseAgain() {
        let f = RouterBehaviourTests.ownFacts(age: 500)
        let now = f.clock.nowMs()
        var router = f.router()
        router.cooldowns = FixedCooldowns(list: [Cooldown(host: Self.host.hex, sinceMs: now - 1_000, untilMs: now + 59_000,
                                                          because: "timed out: accept")])
        #expect(router.resolve().route.brain == .ownHomebase)
        let older = RouterBehaviourTests.ownFacts(age: 2 * minute)
        var expired = older.router()
        expired.cooldowns = FixedCooldowns(list: [Cooldown(host: Self.host.hex, sinceMs: now - 61_000, untilMs: now - 1_000,
                                                           because: "timed out: accept")])
        #expect(expired.resolve().route.brain == .ownHomebase)
    }

    /// Another host's cooldown changes nothing.
    @Test func anotherHostsCooldownIsIgnored() {
        let f = RouterBehaviourTests.ownFacts()
        var router = f.router()
        let now = f.clock.nowMs()
        router.cooldowns = FixedCooldowns(list: [Cooldown(host: PublicKey(bytes: Bytes32.repeating(2).bytes)!.hex,
                                                          sinceMs: now - 1_000, untilMs: now + 59_000, because: "x")])
        #expect(router.resolve().route.brain == .ownHomebase)
    }
}
