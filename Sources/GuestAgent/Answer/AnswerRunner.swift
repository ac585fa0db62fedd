import Foundation
import Inference
import Routing

/// Runs a request on the brain the router chose and, on any ordinary failure, the same request
/// on the on-device brain: silently for the reader, visibly in the log and the metadata.
///
/// After partial output the fallback continues the answer (`ChatRequest.continuation` is the
/// text already shown), so the reader never sees it restart. Fallback goes only toward the
/// device in hand, never to a cloud, with the same request (tools and images included). Which
/// brain may take tools or images is the router's decision (`Router.decide(for:)`); a request
/// no brain can take is refused before anything is sent. When the on-device brain fails too, or
/// cannot take what the request carries, the floor notice ends the answer.
public struct AnswerRunner: Sendable {
    /// Chooses and builds the first brain, and builds the on-device fallback (`Router.brain(for:)`).
    public let router: Router
    /// One line per fallback or failure; never a prompt or an answer.
    public let log: @Sendable (String) -> Void
    /// Where a Homebase that timed out or went silent is cooled down (and cleared once it answers).
    public var cooldowns: CooldownFile?
    /// The warm floor: told the local model before a request leaves for a Homebase, so the
    /// on-device engine a fallback needs starts meanwhile (`GuestContext.warmFloor`); nil: none.
    public var warm: (@Sendable (LocalModel, BrainKind) async -> Void)?

    public init(router: Router, log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.router = router; self.log = log
    }

    /// Streams the answer through `onText` and returns it whole. Never throws for a brain's
    /// failure; cancellation ends it early (`CancellationError`), and a request the router
    /// refused throws its refusal (`RoutingError.noBrainCanSee` / `.noBrainCanUseTools`).
    ///
    /// `onBrain` hears each brain before it is asked (the chosen one, then any fallback), so a
    /// caller can say who is answering while the text streams (`guest serve`'s header).
    /// Tool calls are dropped unless `onToolCall` takes them (the agent loop has its own path).
    /// A brain's calls reach `onToolCall` only once that brain has finished its answer, whole
    /// (its `.toolCallDelta`s are never passed on): a brain that fails mid-call leaves nothing
    /// behind, and the fallback's calls are the only ones the caller sees. The price: a client
    /// of `guest serve` gets each call's arguments in one piece, not token by token.
    /// `onEvent` hears the other events a caller may pass on as they come: `.reasoning` and
    /// `.logprobs` (`guest serve` writes them to its client).
    public func run(_ request: ChatRequest, onText: @Sendable (String) -> Void = { _ in },
                    onBrain: @Sendable (BrainKind) -> Void = { _ in },
                    onToolCall: (@Sendable (ToolCall) -> Void)? = nil,
                    onEvent: (@Sendable (ChatEvent) -> Void)? = nil) async throws -> Answer {
        let routed = router.provider(for: request)
        let decision = routed.decision
        if let refusal = decision.refusal {
            log("refused: \(refusal)")
            throw refusal
        }
        let start = ContinuousClock.now
        if let warm, routed.brain == .ownHomebase || routed.brain == .joinedHomebase,
           router.onDeviceLacks(request, decision.localModel) == nil {
            await warm(decision.localModel, routed.brain)
        }
        var leg = Leg(start: start, onToolCall: onToolCall, onEvent: onEvent)
        var meta = AnswerMetadata(brain: routed.brain, routeReason: decision.reason)
        onBrain(routed.brain)
        let first = await leg.run(routed, request, onText)
        noteCooldown(decision, first)
        if case .finished = first { return leg.answer(&meta) }
        if case .cancelled = first { throw CancellationError() }
        guard case .failed(let why) = first else { return leg.answer(&meta) }
        meta.tried.append(.init(brain: routed.brain, failure: why, failedAtMs: Leg.ms(ContinuousClock.now - start)))

        var current: any ChatProvider = routed.brain == .onDevice ? FloorProvider(why: "\(why)")
            : router.brain(for: .onDevice(decision.localModel))
        if routed.brain != .onDevice, let lacks = router.onDeviceLacks(request, decision.localModel) {
            current = FloorProvider(why: "\(why); \(lacks)")  // never pretend it saw the image
        }
        while true {
            log("fallback: \(meta.tried.last!.brain.rawValue) failed (\(why)) after \(leg.text.utf8.count) bytes; continuing on \(current.brain.rawValue)")
            var next = request
            if !leg.text.isEmpty {
                next.continuation = (request.continuation ?? "") + leg.text
                meta.seamOffset = leg.text.utf8.count
            }
            meta.brain = current.brain
            onBrain(current.brain)
            let outcome = await leg.run(current, next, onText)
            switch outcome {
            case .finished: return leg.answer(&meta)
            case .cancelled: throw CancellationError()
            case .failed(let again):
                meta.tried.append(.init(brain: current.brain, failure: again, failedAtMs: Leg.ms(ContinuousClock.now - start)))
                // The floor never fails; after the on-device brain only the floor is left.
                current = FloorProvider(why: "\(why); then on-device: \(again)")
            }
        }
    }
}

extension AnswerRunner {
    /// A Homebase that never accepted or went silent is cooled down; one that answered is heard.
    func noteCooldown(_ decision: RouteDecision, _ outcome: Leg.Outcome) {
        guard let cooldowns, let host = decision.route.homebaseKey else { return }
        switch outcome {
        case .finished: cooldowns.clear(host)
        case .failed(let why) where why.coolsDown:
            cooldowns.record(host, because: why, nowMs: SystemWallClock().nowMs())
            log("cooldown: homebase \(String(host.hex.prefix(8)))… skipped for \(cooldowns.length) unless heard from (\(why))")
        default: break
        }
    }
}

/// One brain's run inside an answer, and the text shown so far across all of them.
struct Leg {
    enum Outcome { case finished, failed(BrainFailure), cancelled }

    let start: ContinuousClock.Instant
    let onToolCall: (@Sendable (ToolCall) -> Void)?
    let onEvent: (@Sendable (ChatEvent) -> Void)?
    var text = ""
    var firstToken: ContinuousClock.Instant?
    var legFirstToken: ContinuousClock.Instant?
    var chunks = 0
    var usage: Usage?
    var finishReason: String?
    /// This brain's whole calls, handed on at its `.done` (see `AnswerRunner.run`).
    var heldCalls: [ToolCall] = []
    var end: ContinuousClock.Instant?

    init(start: ContinuousClock.Instant, onToolCall: (@Sendable (ToolCall) -> Void)? = nil,
         onEvent: (@Sendable (ChatEvent) -> Void)? = nil) {
        self.start = start; self.onToolCall = onToolCall; self.onEvent = onEvent
    }

    mutating func run(_ provider: any ChatProvider, _ request: ChatRequest,
                      _ onText: @Sendable (String) -> Void) async -> Outcome {
        legFirstToken = nil; chunks = 0; usage = nil; heldCalls = []
        do {
            for try await event in provider.stream(request) {
                switch event {
                case .text(let piece):
                    guard !piece.isEmpty else { continue }
                    let now = ContinuousClock.now
                    if firstToken == nil { firstToken = now }
                    if legFirstToken == nil { legFirstToken = now }
                    chunks += 1
                    text += piece
                    onText(piece)
                case .toolCall(let call):
                    // Tool calls belong to the agent loop (`guest chat --tools`) or to the caller,
                    // once this brain has finished: a failure before then discards them.
                    heldCalls.append(call)
                case .toolCallDelta:
                    continue  // the whole `.toolCall` follows
                case .reasoning, .logprobs:
                    onEvent?(event)
                case let .done(reason, u):
                    usage = u; finishReason = reason; end = .now
                    for call in heldCalls { onToolCall?(call) }
                    return .finished
                }
            }
            if Task.isCancelled { return .cancelled }
            return .failed(.interrupted)
        } catch is CancellationError {
            return .cancelled
        } catch {
            let failure = BrainFailure(error)
            return failure == .cancelled && Task.isCancelled ? .cancelled : .failed(failure)
        }
    }

    func answer(_ meta: inout AnswerMetadata) -> Answer {
        let streamed = legFirstToken.flatMap { a in end.map { (from: a, to: $0) } }
        meta.measure(start: start, firstToken: firstToken, streamed: streamed, chunks: chunks,
                     completionTokens: usage?.completionTokens, promptTokens: usage?.promptTokens, finishReason: finishReason)
        return Answer(text: text, metadata: meta)
    }

    static func ms(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    }
}
