import Basics
import PeerLink
import Sealing
import Signing
import Synchronization
import Wire

/// The host's side of one request: answers it with `accept`, a sealed stream of text chunks,
/// and `done` or `error`, all live to the requester.
///
/// Chunk data is the raw UTF-8 text of the answer for a version 1 request, the typed reply
/// stream (Wire's `ReplyEvent` records) for a version 2 one; no Wire message inside: the stream key,
/// exported from the request envelope, already binds every chunk to this request. Text longer
/// than `StreamSealer.maxChunkData` is split at character boundaries. Each call returns the
/// outcome of its frames: stop generating when the requester is `.notHere`. Calls after
/// `finish`/`fail` return `.failed(.stopped)`. Thread-safe; frames leave in call order.
public final class ReplyWriter: Sendable {
    public let requestID: Bytes16
    /// The request envelope's message id, carried by every chunk.
    public let streamID: MessageID
    public let requester: DeviceRecord
    let courier: Courier
    let state: Mutex<Stream>

    struct Stream {
        let sealer: StreamSealer
        var chunksSent = 0
        var closed = false
        /// Every chunk pads to at least this plaintext size (`pad(chunksTo:)`); 0: its own bucket.
        var floor = 0
    }

    /// From an opened request delivery. Throws `.notARequest` for any other delivery and
    /// `.alreadyAnswered` for a request that already has a writer (one stream per secret).
    public init(courier: Courier, delivery: Delivery) throws(CourierError) {
        guard case .request(let request) = delivery.message, let secret = delivery.streamSecret else {
            throw .notARequest
        }
        guard courier.written.withLock({ $0.claim(delivery.messageID) }) else { throw .alreadyAnswered }
        let sealer: StreamSealer
        do { sealer = try StreamSealer(secret: secret) } catch { throw .sealing(.invalidKey) }
        self.courier = courier
        requestID = request.requestID
        streamID = delivery.messageID
        requester = delivery.sender
        state = Mutex(Stream(sealer: sealer))
    }

    /// Tells the requester the request was taken (its `accept` watchdog stops).
    public func accept() async -> LiveOutcome {
        guard !isClosed else { return .failed(.stopped) }
        return await courier.send(.accept(requestID: requestID), to: requester)
    }

    /// Sends `text` as one or more sealed chunks (not final). Empty text sends nothing.
    public func chunk(text: String) async -> LiveOutcome {
        var bytes = Array(text.utf8)
        defer { wipe(&bytes) }
        let pieces = Self.pieces(of: bytes, max: StreamSealer.maxChunkData)
        return await sendChunks(pieces.map { ($0, false) })
    }

    /// Sends typed reply stream records (a version 2 request's stream) as sealed chunks.
    public func chunk(events data: [UInt8]) async -> LiveOutcome {
        await withCheckedContinuation { c in post(events: data) { c.resume(returning: $0) } }
    }

    /// Ends the stream: a final (empty) chunk, then the `done` envelope (not sent when the
    /// final chunk surely did not arrive: that outcome is returned).
    public func finish(done: AppMessage.Done) async -> LiveOutcome {
        let chunk = await sendChunks([([], true)], closing: true)
        guard Self.mayHaveArrived(chunk) else { return chunk }
        let envelope = await courier.send(.done(done), to: requester)
        return chunk == .sent ? envelope : chunk
    }

    /// Fails the request: if chunks were sent, a final (empty) chunk first so that the stream
    /// is complete; then the `error` envelope.
    public func fail(error: AppMessage.InferenceError) async -> LiveOutcome {
        let needsFinal = state.withLock { s -> Bool? in
            guard !s.closed else { return nil }
            if s.chunksSent == 0 { s.closed = true }
            return s.chunksSent > 0
        }
        guard let needsFinal else { return .failed(.stopped) }
        let chunk = needsFinal ? await sendChunks([([], true)], closing: true) : .sent
        guard Self.mayHaveArrived(chunk) else { return chunk }
        let envelope = await courier.send(.error(error), to: requester)
        return chunk == .sent ? envelope : chunk
    }
}

// Sealing and framing; the stream state lives behind the lock.
extension ReplyWriter {
    /// `.sent`, or a timeout whose frame may still have arrived: worth following up.
    static func mayHaveArrived(_ outcome: LiveOutcome) -> Bool {
        outcome == .sent || outcome == .failed(.timeout)
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    /// Seals and hands the chunks to the link under the lock, so concurrent calls cannot
    /// interleave counters and frames; waits for the outcomes outside it.
    func sendChunks(_ pieces: [([UInt8], Bool)], closing: Bool = false) async -> LiveOutcome {
        if pieces.isEmpty { return isClosed ? .failed(.stopped) : .sent }
        return await withCheckedContinuation { c in
            if !handOff(pieces, closing: closing, then: { c.resume(returning: $0) }) { c.resume(returning: .failed(.stopped)) }
        }
    }

    /// Seals `pieces` and hands their frames to the link under the lock (frames leave in call
    /// order); `completion` hears their gathered outcome. False, and no completion, when the
    /// stream is closed or a piece cannot be sealed.
    func handOff(_ pieces: [([UInt8], Bool)], closing: Bool, then completion: @escaping @Sendable (LiveOutcome) -> Void) -> Bool {
        let link = courier.link, to = requester.signingKey, id = streamID
        return state.withLock { s -> Bool in
            guard !s.closed else { return false }
            var out: [[UInt8]] = []
            for (data, final) in pieces {
                guard let sealed = try? s.sealer.seal(data, final: final, minBucket: s.floor) else { return false }
                out.append(SealedPayload.streamChunkBytes(streamID: id, chunk: sealed))
            }
            s.chunksSent += out.count
            if closing { s.closed = true }
            let gather = OutcomeGather(count: out.count, done: completion)
            for f in out { link.sendLive(to: to, payload: f) { gather.add($0) } }
            return true
        }
    }

    /// Cuts UTF-8 text into pieces of at most `max` bytes, never inside a character.
    static func pieces(of bytes: [UInt8], max: Int) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var lo = 0
        while lo < bytes.count {
            var hi = min(bytes.count, lo + max)
            // Back off continuation bytes (10xxxxxx) so the cut falls before a lead byte.
            while hi < bytes.count, hi > lo, bytes[hi] & 0xC0 == 0x80 { hi -= 1 }
            if hi == lo { hi = min(bytes.count, lo + max) }
            out.append(Array(bytes[lo..<hi]))
            lo = hi
        }
        return out
    }
}

extension Courier {
    /// The writer answering an opened request delivery (see `ReplyWriter.init(courier:delivery:)`).
    public func replyWriter(for delivery: Delivery) throws(CourierError) -> ReplyWriter {
        try ReplyWriter(courier: self, delivery: delivery)
    }
}
