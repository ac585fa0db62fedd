import Basics
import PeerLink
import Sealing
import Wire

// The pipelined side of a writer: frames handed to the link without waiting for the relay to
// confirm the one before. A live frame's confirmation is a ping round trip to the relay; a
// stream that waited for it before each next frame added that round trip to the first token
// (behind `accept`) and to every chunk due sooner than it. Nothing is weakened: frames keep
// call order on the link (the relay forwards a connection's frames in order, over one TLS
// stream), a bounced or lost frame still reaches `then`, and the guest's stream opener fails
// the stream on any gap in the chunk sequence.
extension ReplyWriter {
    /// `accept`, handed to the link at once: it leaves before any chunk posted after this call
    /// returns. `then` (on the link's thread: keep it short) hears its outcome. False when the
    /// stream is closed or `accept` cannot be sealed: nothing was sent, `then` hears why. Also
    /// false while the request's replay check has not accepted it (await `replayChecked()` first).
    @discardableResult
    public func postAccept(then completion: (@Sendable (LiveOutcome) -> Void)? = nil) -> Bool {
        guard !isClosed, mayAnswer else {
            completion?(.failed(.stopped))
            return false
        }
        return courier.post(.accept(requestID: requestID), to: requester, then: completion)
    }

    /// `text` as one or more sealed chunks (not final), handed to the link at once; `then` hears
    /// their outcome (the first that is not `.sent`). Empty text sends nothing and hears `.sent`.
    /// False when the stream is closed: nothing was sent, `then` hears `.failed(.stopped)`.
    @discardableResult
    public func post(text: String, then completion: (@Sendable (LiveOutcome) -> Void)? = nil) -> Bool {
        var bytes = Array(text.utf8)
        defer { wipe(&bytes) }
        let done = completion ?? { _ in }
        let pieces = Self.pieces(of: bytes, max: StreamSealer.maxChunkData)
        return postPieces(pieces, then: done)
    }

    /// Typed reply stream records (Wire's `ReplyEvent`, for a version 2 request) as sealed chunks,
    /// cut anywhere (the reader reassembles records across chunks); otherwise as `post(text:)`.
    @discardableResult
    public func post(events data: [UInt8], then completion: (@Sendable (LiveOutcome) -> Void)? = nil) -> Bool {
        let done = completion ?? { _ in }
        let pieces = stride(from: 0, to: data.count, by: StreamSealer.maxChunkData).map {
            Array(data[$0..<min(data.count, $0 + StreamSealer.maxChunkData)])
        }
        return postPieces(pieces, then: done)
    }

    /// Hands chunk pieces to the writer in order; none: `.sent` while open (nothing to say).
    private func postPieces(_ pieces: [[UInt8]], then done: @escaping @Sendable (LiveOutcome) -> Void) -> Bool {
        if pieces.isEmpty {
            let open = !isClosed
            done(open ? .sent : .failed(.stopped))
            return open
        }
        guard handOff(pieces.map { ($0, false) }, closing: false, then: done) else {
            done(.failed(.stopped))
            return false
        }
        return true
    }
}
