import Sealing
import Synchronization
import Wire

/// One thing the host sent back for a request, in arrival order.
public enum Reply: Equatable, Sendable {
    /// An envelope answering this request: `accept`, `done`, `error` (or a Wire `chunk`).
    case message(AppMessage)
    /// The data of one opened stream chunk: raw UTF-8 text of the answer to a version 1 request,
    /// typed records (Wire's `ReplyEventReader`) to a version 2 one (text pieces may end inside
    /// a multi-byte character only if the host split there; `ReplyWriter` never does).
    case chunk([UInt8], isFinal: Bool)
    /// A stream chunk was refused (`openFailed`, `duplicate`, `dropped`, `reordered`,
    /// `afterFinal`), or `done` came before the final chunk (`truncated`). The stream can no
    /// longer be proven complete: the caller should abandon it (and fall back).
    case streamFailure(SealingError)
    /// The host left the relay mid-exchange (the relay's `peer-gone`, with its reason): nothing
    /// more will come. The stream ends after it; the caller falls back at once.
    case hostGone(PeerGoneReason)
}

/// The replies to one request: an `AsyncSequence` of `Reply`. Ends after `done` or `error`, on
/// `cancel()`, on `Courier.stop()`, or at once when the request was surely not delivered
/// (`notHere`, `dropped`, link down). Releasing it (or cancelling the task iterating it) also
/// unregisters the request. One consumer.
public final class ReplyStream: AsyncSequence, Sendable {
    public typealias Element = Reply
    /// The message id of the request envelope: the stream id its chunks carry.
    public let streamID: MessageID
    public let requestID: Bytes16
    private let replies: AsyncStream<Reply>
    private let unregister: Mutex<(@Sendable () -> Void)?>

    init(streamID: MessageID, requestID: Bytes16, replies: AsyncStream<Reply>, unregister: @escaping @Sendable () -> Void) {
        self.streamID = streamID
        self.requestID = requestID
        self.replies = replies
        self.unregister = Mutex(unregister)
    }

    deinit { cancel() }

    /// Stops delivery: unregisters the request (later chunks and replies are dropped) and ends
    /// the sequence. Does not tell the host: send `.cancel(requestID:)` for that.
    public func cancel() {
        let u = unregister.withLock { u in defer { u = nil }; return u }
        u?()
    }

    public func makeAsyncIterator() -> Iterator { Iterator(owner: self, base: replies.makeAsyncIterator()) }

    /// Keeps its `ReplyStream` alive while iterating: releasing the stream would cancel it.
    public struct Iterator: AsyncIteratorProtocol {
        let owner: ReplyStream
        var base: AsyncStream<Reply>.AsyncIterator
        public mutating func next() async -> Reply? { await base.next() }
    }
}
