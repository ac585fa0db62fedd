import Courier
import Wire

/// Reads one request's replies, in order, into what the caller sees: text, the watchdog rung
/// to move to, and how the attempt ended. A pure state machine (tested without sockets).
///
/// Ladder: the request starts on `accept`; `accept` (or any chunk, which implies it) moves to
/// `first output`; the first non-empty text moves to `stall`. Every chunk, empty ones (the
/// host's keep-alives) included, restarts the rung it is on. A `done` is only trusted after the final chunk (the Courier puts a
/// `.streamFailure(.truncated)` before a `done` that lacks it).
struct ReplyReader {
    enum End: Equatable {
        case done(AppMessage.Done)
        case hostError(AppMessage.InferenceError)
        /// A chunk was refused, or the stream cannot be proven complete.
        case interrupted
        /// The relay said the host left (`peer-gone`): nothing more will come.
        case hostGone(PeerGoneReason)
    }

    struct Step: Equatable {
        /// Text to hand to the caller now ("" for none).
        var text = ""
        /// Move the watchdog to this rung, its limit counted from now.
        var arm: Watchdog.Rung?
        /// The attempt is over.
        var end: End?
    }

    private(set) var accepted = false
    /// True once non-empty text has been handed out: the attempt can no longer be retried
    /// from scratch (a repair would repeat it).
    private(set) var producedText = false
    private var carry = UTF8Carry()

    mutating func read(_ reply: Reply) -> Step {
        switch reply {
        case .message(.accept):
            guard !accepted else { return Step() }
            accepted = true
            return Step(arm: .firstOutput)
        case .chunk(let data, _):
            return output(carry.append(data))
        case .message(.chunk(_, let text)):  // a Wire chunk: text in an envelope
            return output(carry.append(Array(text.utf8)))
        case .message(.done(let done)):
            var step = output(carry.flush())
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
    private mutating func output(_ text: String) -> Step {
        accepted = true
        if !text.isEmpty { producedText = true }
        return Step(text: text, arm: producedText ? .stall : .firstOutput)
    }
}

/// Decodes UTF-8 arriving in pieces: a character split across two chunks is held back until
/// its last byte arrives, so the caller never sees a replacement character mid-answer.
struct UTF8Carry: Equatable {
    private var pending: [UInt8] = []

    /// The text completed by `bytes`; an incomplete trailing character (at most 3 bytes) waits.
    mutating func append(_ bytes: [UInt8]) -> String {
        pending += bytes
        var cut = pending.count
        // Back up over continuation bytes (10xxxxxx) to the lead byte of the last character.
        var lead = cut - 1
        while lead >= 0, lead > cut - 4, pending[lead] & 0xC0 == 0x80 { lead -= 1 }
        if lead >= 0 {
            let b = pending[lead]
            let need = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1
            if cut - lead < need { cut = lead }
        }
        let text = String(decoding: pending[..<cut], as: UTF8.self)
        pending.removeFirst(cut)
        return text
    }

    /// Whatever is left, decoded as is (the stream is complete: an invalid tail is replaced).
    mutating func flush() -> String {
        defer { pending = [] }
        return String(decoding: pending, as: UTF8.self)
    }
}
