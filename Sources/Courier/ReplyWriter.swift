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
    /// The request's replay check, when it still commits as the request is served (nil: done
    /// before the delivery). Nothing leaves before it has accepted the request.
    let replayCommit: ReplayCommit?

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
        replayCommit = delivery.replayCommit
        state = Mutex(Stream(sealer: sealer))
    }

    /// Waits for the request's replay check: true when it accepted the request (or was done
    /// before the delivery). False: a replay, or the store failed; the writer then sends
    /// nothing, ever (the engine request should end unanswered).
    public func replayChecked() async -> Bool {
        guard let replayCommit else { return true }
        return await replayCommit.settled == .accepted
    }

    /// The replay check refused the request (or its store failed): nothing is sent for it.
    public var replayRefused: Bool {
        guard let v = replayCommit?.verdict else { return false }
        return v != .accepted
    }

    /// Frames may leave: the replay check is done and accepted the request.
    var mayAnswer: Bool { replayCommit.map { $0.verdict == .accepted } ?? true }

    /// Tells the requester the request was taken (its `accept` watchdog stops).
    public func accept() async -> LiveOutcome {
        guard await replayChecked(), !isClosed else { return .failed(.stopped) }
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

    /// Ends the stream: a final (empty) chunk, then the `done` envelope (see `finish(text:done:before:)`).
    public func finish(done: AppMessage.Done) async -> LiveOutcome {
        await finish(pieces: [], done: done, before: nil)
    }

    /// Ends the stream of a version 1 request at once: the final chunk carries `text` (the
    /// answer's last batch; empty: an empty final chunk), then `done` (see `finish(pieces:)`).
    /// `pads` empty chunks go first (a shaped stream's padding up to its length class).
    public func finish(text: String, pads: Int = 0, done: AppMessage.Done,
                       before: (@Sendable () async -> Void)? = nil) async -> LiveOutcome {
        var bytes = Array(text.utf8)
        defer { wipe(&bytes) }
        return await finish(pieces: Self.pieces(of: bytes, max: StreamSealer.maxChunkData), pads: pads, done: done, before: before)
    }

    /// As `finish(text:done:before:)` for a version 2 request: the final chunk carries the typed
    /// records `events` (cut anywhere, as `post(events:)` does).
    public func finish(events data: [UInt8], pads: Int = 0, done: AppMessage.Done,
                       before: (@Sendable () async -> Void)? = nil) async -> LiveOutcome {
        let pieces = stride(from: 0, to: data.count, by: StreamSealer.maxChunkData).map {
            Array(data[$0..<min(data.count, $0 + StreamSealer.maxChunkData)])
        }
        return await finish(pieces: pieces, pads: pads, done: done, before: before)
    }

    /// The last chunk(s), the last one final, handed to the link at once; `done` sealed meanwhile,
    /// then `before` awaited (what must hold before the requester hears `done`: the host's durable
    /// writes, which so overlap the seal), then `done` handed to the link behind them without
    /// waiting for the chunk's confirmation (frames leave in call order; a requester gone bounces
    /// both). The outcome is the chunk's when it is not `.sent`, else the envelope's. Nothing is
    /// sent when the stream is closed (`.failed(.stopped)`).
    func finish(pieces: [[UInt8]], pads: Int = 0, done: AppMessage.Done, before: (@Sendable () async -> Void)?) async -> LiveOutcome {
        guard await replayChecked() else { return .failed(.stopped) }
        let data = pieces.isEmpty ? [[UInt8]()] : pieces
        let finals = Array(repeating: ([UInt8](), false), count: max(0, pads)) + data.enumerated().map { ($1, $0 == data.count - 1) }
        let chunk = LaterOutcome()
        guard handOff(finals, closing: true, then: { chunk.settle($0) }) else { return .failed(.stopped) }
        let sealed: [SealedMessage]
        do { sealed = try courier.seal(.done(done), to: requester) } catch {
            await before?()
            return .failed(error.asLinkError)
        }
        await before?()
        let envelope = await courier.sendLive(sealed.map(\.bytes), to: requester.signingKey)
        let c = await chunk.value
        return c == .sent ? envelope : c
    }

    /// Fails the request: if chunks were sent, a final (empty) chunk first so that the stream
    /// is complete; then the `error` envelope.
    public func fail(error: AppMessage.InferenceError) async -> LiveOutcome {
        guard await replayChecked() else { return .failed(.stopped) }
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
            guard !s.closed, mayAnswer else { return false }
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

/// One outcome heard later (on the link's thread), awaited once.
final class LaterOutcome: Sendable {
    private let state = Mutex<(outcome: LiveOutcome?, waiter: CheckedContinuation<LiveOutcome, Never>?)>((nil, nil))

    func settle(_ outcome: LiveOutcome) {
        let waiter = state.withLock { s -> CheckedContinuation<LiveOutcome, Never>? in
            guard s.outcome == nil else { return nil }
            s.outcome = outcome
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: outcome)
    }

    var value: LiveOutcome {
        get async {
            await withCheckedContinuation { c in
                let now = state.withLock { s -> LiveOutcome? in
                    if s.outcome == nil { s.waiter = c }
                    return s.outcome
                }
                if let now { c.resume(returning: now) }
            }
        }
    }
}
