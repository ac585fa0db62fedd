import PeerLink
import Sealing
import Signing
import Wire

/// Reassembles split messages (Wire's `Reassembler`) and remembers, per message, who sent it,
/// the frames to ack and the envelope of its last part (whose id and stream secret the whole
/// message takes). A part naming a message id another sender is filling is refused, so one
/// device cannot spoil another's message.
struct PartCollector {
    private struct Meta {
        var sender: PublicKey
        /// Frames with the payload emptied: only what `PeerLink.ack` needs.
        var frames: [Inbound] = []
        var last: (id: MessageID, secret: SecretBytes)?
    }

    /// A whole message and what it takes from its parts.
    struct Complete {
        var bytes: [UInt8]
        var frames: [Inbound]
        var messageID: MessageID
        var streamSecret: SecretBytes
    }

    enum Outcome {
        case pending
        case complete(Complete)
        case refused
    }

    private var reassembler: Reassembler
    private var meta: [Bytes16: Meta] = [:]

    init(configuration: Reassembler.Configuration) { reassembler = Reassembler(configuration: configuration) }

    mutating func add(_ part: AppMessage.Part, opened: OpenedMessage, frame: Inbound, nowMs: UInt64) -> Outcome {
        var m = meta[part.messageID] ?? Meta(sender: opened.sender)
        guard m.sender == opened.sender else { return .refused }
        var slim = frame
        slim.payload = []
        m.frames.append(slim)
        let whole: [UInt8]?
        do {
            whole = try reassembler.add(part, nowMs: nowMs)
        } catch .duplicatePart {
            meta[part.messageID] = m  // the message lives on; its duplicate frame is acked with it
            return .refused
        } catch {
            // inconsistent: discarded by the reassembler; other errors: never started.
            if case .inconsistentParts = error { meta[part.messageID] = nil }
            return .refused
        }
        if part.index == part.count - 1 { m.last = (opened.messageID, opened.streamSecret) }
        guard let whole else {
            meta[part.messageID] = m
            return .pending
        }
        meta[part.messageID] = nil
        // A complete message always has its last part, so `last` is set.
        guard let last = m.last else { return .refused }
        return .complete(Complete(bytes: whole, frames: m.frames, messageID: last.id, streamSecret: last.secret))
    }

    /// Drops messages past their deadline; returns how many, and their frames (to ack: they are useless now).
    mutating func expire(nowMs: UInt64) -> (count: Int, frames: [Inbound]) {
        let gone = reassembler.expire(nowMs: nowMs)
        var frames: [Inbound] = []
        for g in gone { frames += meta.removeValue(forKey: g.messageID)?.frames ?? [] }
        return (gone.count, frames)
    }
}
