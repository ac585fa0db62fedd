@testable import HomebaseAgent
import Inference
import Testing

/// The least-in-flight picker and its book (#21), pure: several runtimes serving one model.
@Suite struct RuntimeLoadTests {
    let a = "http://a", b = "http://b", c = "http://c"

    @Test func leastInFlightEarlierFirstOnATie() {
        #expect(RuntimeLoad.pick([a, b], inFlight: [:], limit: { _ in 0 }, skipped: []) == a)
        #expect(RuntimeLoad.pick([a, b], inFlight: [a: 1], limit: { _ in 0 }, skipped: []) == b)
        #expect(RuntimeLoad.pick([a, b, c], inFlight: [a: 2, b: 1, c: 1], limit: { _ in 0 }, skipped: []) == b)
        #expect(RuntimeLoad.pick([], inFlight: [:], limit: { _ in 0 }, skipped: []) == nil)
    }

    @Test func skipsFailedAndFull() {
        #expect(RuntimeLoad.pick([a, b], inFlight: [:], limit: { _ in 0 }, skipped: [a]) == b)
        #expect(RuntimeLoad.pick([a, b], inFlight: [a: 5, b: 2], limit: { $0 == b ? 2 : 0 }, skipped: []) == a)
        #expect(RuntimeLoad.pick([a, b], inFlight: [a: 1, b: 1], limit: { _ in 1 }, skipped: []) == nil)
    }

    @Test func twentyRequestsSpreadEvenlyAndComeBack() {
        var load = RuntimeLoad()
        var got: [String] = []
        for _ in 0..<20 { got.append(load.take([a, b], limit: { _ in 0 })!) }
        #expect(got.filter { $0 == a }.count == 10)
        #expect(load.inFlight == [a: 10, b: 10])
        for url in got { load.release(url) }
        #expect(load.inFlight.isEmpty)
        #expect(load.served == [a: 10, b: 10])
    }

    @Test func aFailedRuntimeWaitsForAVerificationAfterItsFailure() {
        var load = RuntimeLoad()
        load.failed(a, nowMs: 1000)
        #expect(load.take([a, b], limit: { _ in 0 }) == b)
        #expect(load.allFailed([a]))
        load.verified(a, checkedMs: 999)  // a verification from before the failure does not count
        #expect(load.take([a, b], limit: { _ in 0 }) == b)
        // With nowhere else to go, a failed runtime is still tried (a single runtime as before #21).
        #expect(load.take([a], limit: { _ in 0 }) == a)
        load.release(a)
        load.verified(a, checkedMs: 1000)
        #expect(load.take([a, b], limit: { _ in 0 }) == a)
    }

    @Test func limitsParse() {
        #expect(RuntimeLimits.parse("2") == RuntimeLimits(all: 2))
        #expect(RuntimeLimits.parse("http://a:1=3, 1") == RuntimeLimits(all: 1, byURL: ["http://a:1": 3]))
        #expect(RuntimeLimits.parse("http://a:1=3")?.limit("http://b") == 0)
        for bad in ["x", "=2", "http://a=-1", "-1"] { #expect(RuntimeLimits.parse(bad) == nil, "\(bad)") }
    }

    @Test func theCatalogListsEveryRuntimeOfAModel() {
        func rt(_ url: String, _ tags: [String]) -> StoredRuntime {
            StoredRuntime(url: url, kind: .openAICompatible, version: nil, available: true, models: tags.map { RuntimeModel(tag: $0) },
                          addedMs: 0, verifiedMs: 0, checkedMs: 0, lastError: nil)
        }
        let catalog = ModelCatalog(runtimes: [rt(a, ["m", "x"]), rt(b, ["m"])])
        #expect(catalog.runtimeURLs(for: "m") == [a, b])
        #expect(catalog.runtimeURLs(for: "x") == [a])
        #expect(catalog.models.map(\.tag) == ["m", "x"])  // advertised once
    }
}
