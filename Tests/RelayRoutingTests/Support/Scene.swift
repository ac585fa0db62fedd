import Courier
import Inference
import InferenceWire
@testable import RelayRouting
import Sealing
import Signing
import Routing
import Transport
import Wire

/// One test's world: the real relay, a guest Courier, the scripted Homebase, a ledger. Both
/// devices reach the relay `via` one path (ProviderPath: in memory or over its listener).
final class Scene: Sendable {
    let relay: LiveRelay
    let loop: EventLoop
    let guest: Courier
    let host: ScriptedHomebase
    let ledger = InMemoryConversationLedger()

    /// `hostOnline: false` leaves the host's link unstarted (the relay answers `not-here`).
    init(_ script: [ScriptedHomebase.Behaviour], hostOnline: Bool = true, via path: ProviderPath) async throws {
        relay = try LiveRelay()
        loop = try EventLoop()
        try loop.start()
        let g = try identity("guest"), h = try identity("homebase")
        guest = try makeCourier(g, knows: [h.record], relay: relay, loop: loop, via: path)
        host = try ScriptedHomebase(h, guest: g.record, relay: relay, loop: loop, script: script, via: path)
        try await connect(guest)
        if hostOnline { try await connect(host.courier) }
    }

    func provider(_ kind: HomebaseProvider.Kind = .own, _ limits: WatchdogLimits = .relaxed) -> HomebaseProvider {
        HomebaseProvider(kind: kind, hostKey: host.record.signingKey, courier: guest, ledger: ledger, limits: limits)
    }

    /// Tells the ledger the host holds the first `count` messages of `messages`.
    func believeHostHolds(_ count: Int, of messages: [ChatMessage]) -> ConversationPlan {
        var plan = ConversationPlan(messages: messages.map(WireBridge.wire))
        ledger.record(host: host.record.signingKey, conversation: plan.conversationID, prefix: plan.hashes[count])
        plan.assume(held: plan.hashes[count])
        return plan
    }

    func stop() {
        guest.stop()
        host.courier.stop()
        relay.stop()
        loop.shutdown()
        loop.join()
    }
}

extension WatchdogLimits {
    /// Limits no healthy loopback exchange reaches (a noisy machine included).
    static let relaxed = WatchdogLimits(accept: .seconds(20), firstOutput: .seconds(20), stall: .seconds(20))
    /// One rung short (100 ms), the others relaxed.
    static func short(_ rung: Watchdog.Rung) -> WatchdogLimits {
        var l = relaxed
        switch rung {
        case .accept: l.accept = .milliseconds(100)
        case .firstOutput: l.firstOutput = .milliseconds(100)
        case .stall: l.stall = .milliseconds(100)
        }
        return l
    }
}

/// What a caller saw of one stream: every event in order, then the failure if any.
struct Seen {
    var events: [ChatEvent] = []
    var failure: (any Error)?
    var text: String { events.map { if case .text(let t) = $0 { t } else { "" } }.joined() }
    var done: Bool { events.contains { if case .done = $0 { true } else { false } } }
    /// The rung that fired (what `HomebaseProvider` throws).
    var brainFailure: BrainFailure? { failure as? BrainFailure }
}

/// Reads a provider's stream to its end (the hang guard bounds it). `stopAfter`: the caller
/// walks away after that many events.
func read(_ provider: some ChatProvider, _ request: ChatRequest, stopAfter: Int? = nil) async throws -> Seen {
    try await withThrowingTaskGroup(of: Seen?.self) { group in
        group.addTask {
            var seen = Seen()
            do {
                for try await e in provider.stream(request) {
                    seen.events.append(e)
                    if let stopAfter, seen.events.count >= stopAfter { break }
                }
            } catch {
                seen.failure = error
            }
            return seen
        }
        group.addTask { try await Task.sleep(for: hangGuard); return nil }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let seen = first else { throw SetupError("the stream never ended") }
        return seen
    }
}

func chat(_ turns: String...) -> [ChatMessage] {
    turns.enumerated().map { i, t in ChatMessage(role: i % 2 == 0 ? .user : .assistant, content: t) }
}
