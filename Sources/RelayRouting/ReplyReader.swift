import Courier
import Inference
import InferenceWire
import Wire

/// Reads one request's replies, in order, into what the caller sees: events, the watchdog rung
/// to move to, and how the attempt ended. A pure state machine (tested without sockets).
///
/// The guest sends version 2 requests, so stream chunks carry the typed reply stream (Wire's
/// `ReplyEvent` records, a record possibly spanning chunks); a Wire `chunk` message is text.
///
/// Ladder: the request starts on `accept`; `accept` (or any chunk, which implies it) moves to
/// `first output`; the first output event (text, reasoning, a tool call) moves to `stall`.
/// Every chunk, empty ones (the host's keep-alives) included, restarts the rung it is on. A
/// `done` is only trusted after the final chunk (the Courier puts a `.streamFailure(.truncated)`
/// before a `done` that lacks it) and at a record boundary.
struct ReplyReader {
    enum End: Equatable {
        case done(AppMessage.Done)
        case hostError(AppMessage.InferenceError)
        /// A chunk was refused or malformed, or the stream cannot be proven complete.
        case interrupted
        /// The relay said the host left (`peer-gone`): nothing more will come.
        case hostGone(PeerGoneReason)
    }

    struct Step: Equatable {
        /// Events to hand to the caller now.
        var events: [ChatEvent] = []
        /// Option keys the host said it ignored (an older host): for the log.
        var ignoredOptions: [UInt16] = []
        /// Move the watchdog to this rung, its limit counted from now.
        var arm: Watchdog.Rung?
        /// The attempt is over.
        var end: End?
    }

    private(set) var accepted = false
    /// True once output has been handed out: the attempt can no longer be retried from
    /// scratch (a repair would repeat it).
    private(set) var producedText = false
    private var records = ReplyEventReader()

    mutating func read(_ reply: Reply) -> Step {
        switch reply {
        case .message(.accept):
            guard !accepted else { return Step() }
            accepted = true
            return Step(arm: .firstOutput)
        case .chunk(let data, _):
            do {
                return output(try records.append(data))
            } catch {
                return Step(end: .interrupted)
            }
        case .message(.chunk(_, let text)):  // a Wire chunk: text in an envelope
            return output(text.isEmpty ? [] : [.text(text)])
        case .message(.done(let done)):
            guard records.isAtBoundary else { return Step(end: .interrupted) }
            var step = output([])
            step.end = .done(done)
            return step
        case .message(.error(let error)):
            return Step(end: .hostError(error))
        case .streamFailure:
            return Step(end: .interrupted)
        case .hostGone(let reason):
            return Step(end: .hostGone(reason))
        case .message:
            return Step()  // not a reply the Courier routes here; ignored
        }
    }

    /// Every chunk restarts the current rung: an empty one is the host's keep-alive (SPEC.md,
    /// "Inference through the relay"), sent while its engine works on the prompt or pauses.
    private mutating func output(_ wire: [ReplyEvent]) -> Step {
        accepted = true
        var step = Step()
        for e in wire {
            if case .ignoredOptions(let keys) = e { step.ignoredOptions += keys }
            guard let event = WireBridge.chatEvent(e) else { continue }  // unknown kinds: a later host's, skipped
            if case .text(let t) = event, t.isEmpty { continue }
            step.events.append(event)
        }
        if !step.events.isEmpty { producedText = true }
        step.arm = producedText ? .stall : .firstOutput
        return step
    }
}
