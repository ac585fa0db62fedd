import Courier
import Inference
@testable import RelayRouting
import Routing
import Testing
import Wire

@Suite("the watchdog ladder, in milliseconds")
struct LadderTests {
    @Test(arguments: ProviderPath.allCases) func noAcceptFiresTheAcceptRungAndCancels(via path: ProviderPath) async throws {
        let scene = try await Scene([.neverAccept], via: path)
        defer { scene.stop() }
        let seen = try await read(scene.provider(.own, .short(.accept)), ChatRequest(model: "tiny", messages: chat("hi")))
        #expect(seen.brainFailure == .watchdog(.accept))
        try await eventually("cancel at the host") { scene.host.cancels.count == 1 }
        #expect(scene.host.cancels == scene.host.requests.map(\.requestID))
    }

    @Test(arguments: ProviderPath.allCases) func acceptWithoutOutputFiresTheFirstOutputRungAndCancels(via path: ProviderPath) async throws {
        let scene = try await Scene([.acceptThenSilence], via: path)
        defer { scene.stop() }
        let seen = try await read(scene.provider(.own, .short(.firstOutput)), ChatRequest(model: "tiny", messages: chat("hi")))
        #expect(seen.brainFailure == .watchdog(.firstOutput))
        #expect(seen.events.isEmpty)
        try await eventually("cancel at the host") { scene.host.cancels == scene.host.requests.map(\.requestID) }
    }

    @Test(arguments: ProviderPath.allCases) func silenceMidStreamFiresTheStallRungAfterThePartialTextWasSeen(via path: ProviderPath) async throws {
        let scene = try await Scene([.outputThenSilence(["Once ", "upon"])], via: path)
        defer { scene.stop() }
        // The host waits a relay round trip between its two chunks: a second, not `.short`'s
        // 100 ms, so a loaded machine does not fire the rung between them.
        var limits = WatchdogLimits.relaxed
        limits.stall = .seconds(1)
        let seen = try await read(scene.provider(.own, limits), ChatRequest(model: "tiny", messages: chat("a story")))
        #expect(seen.brainFailure == .watchdog(.stall))
        // The caller holds the partial text: its fallback continues from here.
        #expect(seen.text == "Once upon" && !seen.done)
        try await eventually("cancel at the host") { scene.host.cancels == scene.host.requests.map(\.requestID) }
        // Nothing is believed held after a failure: the next request inlines.
        #expect(scene.ledger.count == 0)
    }

    /// The relay's `peer-gone` says the host left: the request ends at once with the partial
    /// text, long before the stall rung (an hour here).
    @Test(arguments: ProviderPath.allCases) func aHostDroppingOfflineMidStreamIsKnownAtOnceWithThePartialText(via path: ProviderPath) async throws {
        let scene = try await Scene([.outputThenOffline(["partial"])], via: path)
        defer { scene.stop() }
        let seen = try await read(scene.provider(.own, WatchdogLimits(stall: .seconds(3600))),
                                  ChatRequest(model: "tiny", messages: chat("hi")))
        #expect(seen.brainFailure == .hostGone(.closed) && seen.text == "partial")
    }

    @Test(arguments: ProviderPath.allCases) func aTruncatedStreamIsInterruptedAndCancelled(via path: ProviderPath) async throws {
        let scene = try await Scene([.outputThenTruncatedDone(["half"])], via: path)
        defer { scene.stop() }
        let seen = try await read(scene.provider(), ChatRequest(model: "tiny", messages: chat("hi")))
        #expect(seen.brainFailure == .interrupted && seen.text == "half" && !seen.done)
        try await eventually("cancel at the host") { scene.host.cancels == scene.host.requests.map(\.requestID) }
    }

    @Test(arguments: ProviderPath.allCases) func aConsumerWalkingAwayCancelsAtTheHost(via path: ProviderPath) async throws {
        let scene = try await Scene([.outputThenSilence(["one", "two"])], via: path)
        defer { scene.stop() }
        let seen = try await read(scene.provider(), ChatRequest(model: "tiny", messages: chat("hi")), stopAfter: 1)
        #expect(seen.events.count == 1 && seen.failure == nil)
        try await eventually("cancel at the host") { scene.host.cancels.count == 1 }
        #expect(scene.host.cancels == scene.host.requests.map(\.requestID))
    }
}
