import Courier
import Inference
@testable import RelayRouting
import Routing
import Testing
import Wire

@Suite("exactly one repair, then failure")
struct RepairTests {
    static let conversation = chat("hi", "hello", "tell me more", "sure", "go on")
    /// A repair's arm: the host it applies to, its code, what the host sees when it fails twice.
    typealias Arm = (kind: HomebaseProvider.Kind, code: AppMessage.ErrorCode, seen: [String])

    @Test(arguments: ProviderPath.allCases) func divergedOnceSendsOneSyncDeltaThenRetriesOnce(via path: ProviderPath) async throws {
        let scene = try await Scene([.error(.diverged), .answer(["repaired"])], via: path)
        defer { scene.stop() }
        let plan = scene.believeHostHolds(3, of: Self.conversation)
        let seen = try await read(scene.provider(.own), ChatRequest(model: "tiny", messages: Self.conversation))
        #expect(seen.failure == nil && seen.done && seen.text == "repaired")
        // The peer saw: the request, exactly one sync-delta, the retried request. No cancel.
        let kinds = scene.host.seen.map(kind)
        #expect(kinds == ["request", "sync-delta", "request"])
        let delta = try #require(scene.host.deltas.first)
        // From the empty prefix to what the request extends.
        #expect(delta.basePrefixHash == .zero && delta.resultingPrefixHash == plan.prefixHash)
        #expect(delta.conversationID == plan.conversationID)
        #expect(delta.appended.map(\.content) == ["hi", "hello", "tell me more"])
        let (first, retry) = (scene.host.requests[0], scene.host.requests[1])
        #expect(first.requestID != retry.requestID)
        #expect(retry.prefixHash == plan.prefixHash && !retry.inline && retry.messages == first.messages)
        #expect(retry.messages.map(\.content) == ["sure", "go on"])
        #expect(scene.host.cancels.isEmpty)
        #expect(scene.ledger.heldPrefix(host: scene.host.record.signingKey, conversation: plan.conversationID) == plan.fullHash)
    }

    /// Each arm repairs once: its code again fails with that code, the retry is cancelled and
    /// nothing is believed held (`diverged` from the own host: after a sync-delta; `cache_miss`
    /// from a joined one: after the inline retry).
    @Test(arguments: ProviderPath.allCases, [
        (HomebaseProvider.Kind.own, AppMessage.ErrorCode.diverged, ["request", "sync-delta", "request", "cancel"]),
        (.joined, .cacheMiss, ["request", "request", "cancel"]),
    ])
    func aRepairCodeTwiceFailsAfterOneRepairAndCancels(via path: ProviderPath, arm: Arm) async throws {
        let scene = try await Scene([.error(arm.code)], via: path)
        defer { scene.stop() }
        _ = scene.believeHostHolds(3, of: Self.conversation)
        let seen = try await read(scene.provider(arm.kind), ChatRequest(model: "tiny", messages: Self.conversation))
        #expect(seen.brainFailure == .host(arm.code, message: "scripted \(arm.code.rawValue)"))
        try await eventually("cancel at the host") { scene.host.cancels.count == 1 }
        #expect(scene.host.seen.map(kind) == arm.seen)
        #expect(scene.host.cancels == [scene.host.requests[1].requestID])
        #expect(scene.ledger.count == 0)
    }

    @Test(arguments: ProviderPath.allCases) func cacheMissOnceRetriesOnceInline(via path: ProviderPath) async throws {
        let scene = try await Scene([.error(.cacheMiss), .answer(["from the top"])], via: path)
        defer { scene.stop() }
        let plan = scene.believeHostHolds(3, of: Self.conversation)
        let seen = try await read(scene.provider(.joined), ChatRequest(model: "tiny", messages: Self.conversation))
        #expect(seen.done && seen.text == "from the top")
        #expect(scene.host.seen.map(kind) == ["request", "request"])  // no sync-delta to another account
        let (first, retry) = (scene.host.requests[0], scene.host.requests[1])
        #expect(!first.inline && first.prefixHash == plan.prefixHash && first.messages.count == 2)
        #expect(retry.inline && retry.prefixHash == .zero && retry.messages.count == Self.conversation.count)
        #expect(first.requestID != retry.requestID && scene.host.cancels.isEmpty)
    }

    @Test(arguments: ProviderPath.allCases) func aRepairCodeFromTheOtherArmIsAnOrdinaryFailure(via path: ProviderPath) async throws {
        // `diverged` from a joined host and `cache_miss` from the own host: no repair applies.
        for (kind, code): (HomebaseProvider.Kind, AppMessage.ErrorCode) in [(.joined, .diverged), (.own, .cacheMiss)] {
            let scene = try await Scene([.error(code), .answer(["no"])], via: path)
            defer { scene.stop() }
            _ = scene.believeHostHolds(3, of: Self.conversation)
            let seen = try await read(scene.provider(kind), ChatRequest(model: "tiny", messages: Self.conversation))
            #expect(seen.brainFailure == .host(code, message: "scripted \(code.rawValue)"))
            try await eventually("cancel at the host") { scene.host.cancels.count == 1 }
            #expect(scene.host.requests.count == 1 && scene.host.deltas.isEmpty)
        }
    }
}

@Suite("the host's error codes are ordinary failures")
struct HostErrorTests {
    /// The failure is the host's code as a case; the words (for the log and `status`) are only
    /// its display, and stay what they were.
    @Test(arguments: ProviderPath.allCases, [
        (AppMessage.ErrorCode.modelUnavailable, "model unavailable: scripted 1"),
        (.hostError, "remote error host_error: scripted 2"),
        (.busy, "remote error busy: scripted 3"),
        (.revoked, "remote error revoked: scripted 6"),
        (.badRequest, "remote error bad_request: scripted 7"),
        (AppMessage.ErrorCode(rawValue: 99), "remote error host_error: scripted 99"),
    ])
    func anErrorFailsAtOnceWithoutRetryAndCancels(via path: ProviderPath, error: (code: AppMessage.ErrorCode, words: String)) async throws {
        let (code, words) = error
        let scene = try await Scene([.error(code), .answer(["never"])], via: path)
        defer { scene.stop() }
        let seen = try await read(scene.provider(), ChatRequest(model: "tiny", messages: chat("hi")))
        #expect(seen.brainFailure == .host(code, message: "scripted \(code.rawValue)") && seen.events.isEmpty)
        #expect(seen.brainFailure?.description == words)
        try await eventually("cancel at the host") { scene.host.cancels.count == 1 }
        #expect(scene.host.seen.map(kind) == ["request", "cancel"])
    }
}

func kind(_ m: AppMessage) -> String {
    switch m {
    case .request: "request"
    case .syncDelta: "sync-delta"
    case .cancel: "cancel"
    default: "other"
    }
}
