import Inference
import Routing

/// What an answer carries besides its text: who answered, who was tried first and why they
/// failed, where a fallback took over, and how fast it went. Never a prompt or the answer.
public struct AnswerMetadata: Sendable, Equatable {
    /// A brain that was tried and failed, with the rung that fired.
    public struct Attempt: Sendable, Equatable {
        public var brain: BrainKind
        public var failure: BrainFailure
        /// When it failed, in milliseconds from the start of the run (nil: not measured).
        public var failedAtMs: Double?

        public init(brain: BrainKind, failure: BrainFailure, failedAtMs: Double? = nil) {
            self.brain = brain; self.failure = failure; self.failedAtMs = failedAtMs
        }

        /// The failure in words, for display only.
        public var why: String { failure.description }
    }

    /// The brain whose output ended the answer (`.floor` for the notice).
    public var brain: BrainKind
    /// The router's reason for its choice (`RouteDecision.reason`).
    public var routeReason: String
    /// Brains that failed, in order, before `brain` answered.
    public var tried: [Attempt] = []
    /// UTF-8 offset in the answer's text where the fallback's continuation starts; nil when
    /// no fallback happened after output.
    public var seamOffset: Int?
    /// From the start of the run to the first text, in milliseconds.
    public var timeToFirstTokenMs: Double?
    /// Generated tokens per second of the brain that answered (usage when reported, else the
    /// number of text chunks), from its first token to its end.
    public var tokensPerSecond: Double?
    /// Completion tokens of the brain that answered, when it reported usage.
    public var completionTokens: Int?
    /// Prompt tokens of the brain that answered, when it reported usage.
    public var promptTokens: Int?
    public var finishReason: String?
    /// The part of `timeToFirstTokenMs` spent setting up the relay link (the reader's clock, on
    /// the answer that waited for it).
    public var linkSetUpMs: Double?
    /// The longest wait between two pieces of text, when the reader's clock measured it.
    public var longestSilenceMs: Double?

    /// True when another brain than the chosen one answered.
    public var fellBack: Bool { !tried.isEmpty }

    /// The dim line after an answer: "on-device · first token 8 ms · 4,900 tok/s".
    public var summaryLine: String {
        var parts = [brain == .floor ? "no brain (floor notice)" : brain.rawValue]
        if let t = timeToFirstTokenMs { parts.append("first token \(Self.ms(t))" + (linkSetUpMs.map { " (link \(Self.ms($0)))" } ?? "")) }
        if let r = tokensPerSecond { parts.append("\(Int(r.rounded())) tok/s") }
        if let s = longestSilenceMs, s > 1000 { parts.append("longest silence \(Self.ms(s))") }
        if let last = tried.last { parts.append("fell back: \(last.brain.rawValue) failed (\(last.why))") }
        return parts.joined(separator: " · ")
    }

    static func ms(_ v: Double) -> String {
        v < 10 ? String(format: "%.1f ms", v) : v < 10_000 ? "\(Int(v.rounded())) ms" : String(format: "%.1f s", v / 1000)
    }
}

/// An answer: its whole text and its metadata.
public struct Answer: Sendable, Equatable {
    public var text: String
    public var metadata: AnswerMetadata
}

extension AnswerMetadata {
    /// The shortest streamed span, in seconds, a tokens/s figure is given for.
    static let minimumRateSpan = 0.01

    /// The timing and token figures of one answer: time to first token from `start`, tokens/s
    /// over the streamed span (not for the floor, which streams no model), the usage and finish.
    mutating func measure(start: ContinuousClock.Instant, firstToken: ContinuousClock.Instant?,
                          streamed: (from: ContinuousClock.Instant, to: ContinuousClock.Instant)?, chunks: Int,
                          completionTokens: Int?, promptTokens: Int?, finishReason: String?) {
        if let f = firstToken { timeToFirstTokenMs = Leg.ms(f - start) }
        if brain != .floor, let (a, b) = streamed {
            let seconds = Leg.ms(b - a) / 1000
            let tokens = completionTokens ?? chunks
            // A span shorter than `minimumRateSpan` (the text came in one burst) gives no rate:
            // 64 tokens over 0.2 ms read "380,000 tok/s", a figure of the batching, not the brain.
            if seconds >= Self.minimumRateSpan, tokens > 0 { tokensPerSecond = Double(tokens) / seconds }
        }
        self.completionTokens = completionTokens
        self.promptTokens = promptTokens
        self.finishReason = finishReason
    }
}
