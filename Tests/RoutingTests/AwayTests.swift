import Routing
import Signing
import Testing
import Wire

/// Fixed away marks, as the guest's file would hold them (a TEST source).
struct FixedAway: AwaySource {
    var list: [AwayMark]
    func away(of host: PublicKey) -> AwayMark? { list.first { $0.host == host.hex } }
}

/// A host that said it went to sleep: the router's reason says "asleep" while its newest advert
/// is the empty one the away message named; any other advert ends it (issue 18).
@Suite struct AwayTests {
    static let host = PublicKey(bytes: Bytes32.repeating(1).bytes)!
    static let goodbyeMs: Int64 = 1_699_920_000_000 + (23 * 3600 + 10 * 60) * 1000  // 2023-11-14 23:10 UTC

    static func asleepFacts(sequence: UInt64 = 7) -> FakeFacts {
        var f = RouterBehaviourTests.ownFacts(age: 500)
        f.own.advert?.advert.models = []
        f.own.advert?.advert.sequence = sequence
        return f
    }

    @Test func anEmptyAdvertWithItsAwayMarkSaysAsleep() {
        var router = Self.asleepFacts().router()
        router.away = FixedAway(list: [AwayMark(host: Self.host.hex, advertSequence: 7, sinceMs: Self.goodbyeMs, receivedMs: 0)])
        let decision = router.resolve()
        #expect(decision.route.brain == .onDevice)
        #expect(decision.reason.contains("own Homebase is asleep (said goodbye at 23:10 UTC)"), "\(decision.reason)")
    }

    /// The advert it named is no longer the newest (the host resumed and advertised again, then
    /// emptied its list for another reason), or no mark: the old words.
    @Test func aMarkForAnotherAdvertOrNoneSaysNoModels() {
        var router = Self.asleepFacts(sequence: 8).router()
        router.away = FixedAway(list: [AwayMark(host: Self.host.hex, advertSequence: 7, sinceMs: Self.goodbyeMs, receivedMs: 0)])
        #expect(router.resolve().reason.contains("own Homebase advert lists no models"), "\(router.resolve().reason)")
        let unmarked = Self.asleepFacts().router()
        #expect(unmarked.resolve().reason.contains("own Homebase advert lists no models"))
    }

    /// Resumed: an advert with models routes to it, whatever mark is on file.
    @Test func anAdvertWithModelsRoutesDespiteAnOldMark() {
        var router = RouterBehaviourTests.ownFacts(age: 500).router()
        router.away = FixedAway(list: [AwayMark(host: Self.host.hex, advertSequence: 1, sinceMs: Self.goodbyeMs, receivedMs: 0)])
        #expect(router.resolve().route.brain == .ownHomebase)
    }
}
