import Inference
import Routing

/// The floor: what answers when no brain can. Never throws: it streams a short, clearly
/// labelled notice and `.done`, so the reader always gets an answer.
public struct FloorProvider: ChatProvider {
    /// Why nothing else could answer (never a prompt or a key).
    public let why: String

    public init(why: String) { self.why = why }

    public var brain: BrainKind { .floor }

    /// The finish reason that marks a floor answer.
    public static let finishReason = "floor"

    /// The notice text.
    public static func notice(_ why: String) -> String {
        "[No brain was reachable: \(why). Install a local model with `guest models pull <name>` "
            + "(see `guest models browse`), or configure one (`guest settings`).]"
    }

    public func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error> {
        let (events, out) = AsyncThrowingStream.makeStream(of: ChatEvent.self)
        out.yield(.text(Self.notice(why)))
        out.yield(.done(finishReason: Self.finishReason, usage: nil))
        out.finish()
        return events
    }
}

/// A provider that fails at once with `error`: a seam not yet filled (the relay link, a cloud
/// client still to come). The runner falls back on-device.
public struct FailingProvider: ChatProvider {
    public let brain: BrainKind
    public let error: BrainFailure

    public init(brain: BrainKind, error: BrainFailure) {
        self.brain = brain
        self.error = error
    }

    public func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error> {
        AsyncThrowingStream { $0.finish(throwing: error) }
    }
}
