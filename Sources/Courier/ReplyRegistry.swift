import Sealing
import Signing
import Synchronization
import Wire

/// The requests waiting for replies, by stream id (the request envelope's message id).
///
/// Openers are used under the lock; continuations are yielded to and finished outside it,
/// because finishing runs the stream's termination handler, which unregisters (takes the lock).
final class ReplyRegistry: Sendable {
    private struct Entry {
        let requestID: Bytes16
        /// Only the device we asked may answer.
        let host: PublicKey
        let opener: StreamOpener
        let sink: AsyncStream<Reply>.Continuation
        var finalSeen = false
        /// The request's live outcome said it reached the relay (`confirm`): a `peer-gone`
        /// heard before that is about an earlier departure of the host, not about this request.
        var confirmed = false
    }

    private struct State {
        var entries: [MessageID: Entry] = [:]
        /// Recently cancelled (host, request id), oldest first: their late replies are dropped.
        var cancelled: [(host: PublicKey, requestID: Bytes16)] = []
        var stopped = false
        /// Requests ended by `hostGone`.
        var endedByPeerGone = 0
    }

    enum ChunkResult { case delivered, failed, unexpected, overflow }
    enum MessageResult { case notAReply, delivered, late, overflow }

    private let state = Mutex(State())
    private let cancelledMemory: Int
    private let bufferSize: Int

    init(cancelledMemory: Int, bufferSize: Int) {
        self.cancelledMemory = max(0, cancelledMemory)
        self.bufferSize = max(1, bufferSize)
    }

    /// Registers a request's reply stream. Throws `invalidKey` for a bad secret.
    func register(streamID: MessageID, requestID: Bytes16, host: PublicKey, secret: SecretBytes) throws -> ReplyStream {
        let (stream, sink) = AsyncStream.makeStream(of: Reply.self, bufferingPolicy: .bufferingOldest(bufferSize))
        let stopped = try state.withLock { s in
            if s.stopped { return true }
            // Made under the lock: the opener never leaves the registry's region.
            s.entries[streamID] = Entry(requestID: requestID, host: host, opener: try StreamOpener(secret: secret), sink: sink)
            return false
        }
        if stopped { sink.finish() }
        let unregister: @Sendable () -> Void = { [weak self] in self?.remove(streamID, cancelled: true) }
        sink.onTermination = { _ in unregister() }
        return ReplyStream(streamID: streamID, requestID: requestID, replies: stream, unregister: unregister)
    }

    /// Unregisters and ends a stream; `cancelled` remembers it so late replies are dropped.
    func remove(_ streamID: MessageID, cancelled: Bool) {
        let entry = state.withLock { s -> Entry? in
            guard let e = s.entries.removeValue(forKey: streamID) else { return nil }
            if cancelled && cancelledMemory > 0 {
                s.cancelled.append((e.host, e.requestID))
                if s.cancelled.count > cancelledMemory { s.cancelled.removeFirst() }
            }
            return e
        }
        entry?.sink.finish()
    }

    /// Opens a stream chunk for the stream it names, if `sender` is the host we asked.
    func chunk(streamID: MessageID, from sender: PublicKey, bytes: ArraySlice<UInt8>) -> ChunkResult {
        let outcome = state.withLock { s -> (Reply, AsyncStream<Reply>.Continuation)? in
            guard var e = s.entries[streamID], e.host == sender else { return nil }
            do {
                let (data, isFinal) = try e.opener.open(bytes)
                if isFinal { e.finalSeen = true; s.entries[streamID] = e }
                return (.chunk(data, isFinal: isFinal), e.sink)
            } catch let error as SealingError {
                return (.streamFailure(error), e.sink)
            } catch {
                return (.streamFailure(.openFailed), e.sink)
            }
        }
        guard let (reply, sink) = outcome else { return .unexpected }
        if case .dropped = sink.yield(reply) { return .overflow }
        if case .streamFailure = reply { return .failed }
        return .delivered
    }

    /// Hands an inference reply (accept, chunk, done, error, embed-result) from `sender` to its request's
    /// stream; `done` and `error` end it. A `done` before the final chunk is preceded by
    /// `.streamFailure(.truncated)`.
    func reply(_ message: AppMessage, from sender: PublicKey) -> MessageResult {
        guard let (requestID, ends) = Self.requestID(ofReply: message) else { return .notAReply }
        let found = state.withLock { s -> (MessageID, Bool, AsyncStream<Reply>.Continuation)? in
            s.entries.first { $0.value.requestID == requestID && $0.value.host == sender }
                .map { ($0.key, $0.value.finalSeen, $0.value.sink) }
        }
        guard let (streamID, finalSeen, sink) = found else {
            let late = state.withLock { s in s.cancelled.contains { $0.host == sender && $0.requestID == requestID } }
            return late ? .late : .notAReply
        }
        var overflow = false
        if case .done = message, !finalSeen, case .dropped = sink.yield(.streamFailure(.truncated)) {
            overflow = true
        }
        if case .dropped = sink.yield(.message(message)) { overflow = true }
        if ends { remove(streamID, cancelled: false) }
        return overflow ? .overflow : .delivered
    }

    /// The request a reply (accept, chunk, done, error, embed-result, manage-progress,
    /// manage-result) answers, and whether it ends that request's stream; nil: not a reply.
    static func requestID(ofReply message: AppMessage) -> (Bytes16, ends: Bool)? {
        switch message {
        case .accept(let id), .chunk(let id, _): (id, false)
        case .done(let d): (d.requestID, true)
        case .error(let e): (e.requestID, true)
        case .embedResult(let e): (e.requestID, true)
        case .manageProgress(let p): (p.requestID, false)
        case .manageResult(let m): (m.requestID, true)
        default: nil
        }
    }

    /// The request's outcome says it reached the relay (called on the link's thread).
    func confirm(_ streamID: MessageID) {
        state.withLock { s in s.entries[streamID]?.confirmed = true }
    }

    /// The requests waiting on `host` whose outcome said they reached the relay: the ones a
    /// `peer-gone` for `host` heard now is about. Called on the link's thread as it arrives.
    func confirmedRequests(of host: PublicKey) -> [MessageID] {
        state.withLock { s in s.entries.filter { $0.value.host == host && $0.value.confirmed }.map(\.key) }
    }

    /// Those of `ids` still waiting hear `.hostGone` and end (after every reply that arrived
    /// before the notice: the Courier calls this in the notice's place among the frames).
    /// Returns how many ended.
    @discardableResult
    func hostGone(_ ids: [MessageID], _ reason: PeerGoneReason) -> Int {
        let ended = state.withLock { s in
            let e = ids.compactMap { id in s.entries[id].map { (id, $0.sink) } }
            s.endedByPeerGone += e.count
            return e
        }
        for (id, sink) in ended {
            sink.yield(.hostGone(reason))
            remove(id, cancelled: true)  // a late reply from a replaced connection is dropped
        }
        return ended.count
    }

    /// Ends every stream (the Courier stopped); later registrations end at once.
    func finishAll() {
        let sinks = state.withLock { s in
            s.stopped = true
            defer { s.entries.removeAll() }
            return s.entries.values.map(\.sink)
        }
        for sink in sinks { sink.finish() }
    }

    /// Requests waiting for replies.
    var count: Int { state.withLock { $0.entries.count } }
    var endedByPeerGone: Int { state.withLock { $0.endedByPeerGone } }
}
