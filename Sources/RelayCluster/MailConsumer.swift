import CNats
import Synchronization

/// A JetStream message handed to a device: its bytes and the subject its ack goes to.
public struct StoredMessage: Sendable {
    public let data: [UInt8]
    /// `$JS.ACK...`: publishing "+ACK" there deletes it (work-queue retention).
    public let ackSubject: String
}

/// One recipient's pull consumer. Blocking calls: off the event loop, one at a time per consumer.
///
/// `@unchecked Sendable`: the subscription pointer is used by one caller at a time (the relay
/// runs a consumer's calls on one serial queue) and freed once under `lock`.
public final class MailConsumer: @unchecked Sendable {
    private let lock = Mutex<Bool>(false) // true once closed
    private let sub: OpaquePointer
    private let connection: NatsConnection

    init(_ sub: OpaquePointer, connection: NatsConnection) {
        self.connection = connection
        self.sub = sub
    }

    /// Up to `batch` messages available now (none: an empty array, not an error).
    public func fetch(batch: Int) throws(ClusterError) -> [StoredMessage] {
        guard !lock.withLock({ $0 }) else { throw .unexpected("consumer closed") }
        var req = jsFetchRequest()
        jsFetchRequest_Init(&req)
        req.Batch = Int32(batch)
        req.NoWait = true
        req.Expires = connection.settings.timeoutMs * 1_000_000
        var list = natsMsgList()
        let st = natsSubscription_FetchRequest(&list, sub, &req)
        defer { natsMsgList_Destroy(&list) }
        if st == NATS_NOT_FOUND || st == NATS_TIMEOUT { return [] }
        try ClusterError.check(st, "fetch")
        var out: [StoredMessage] = []
        for i in 0..<Int(list.Count) {
            guard let m = list.Msgs[i] else { continue }
            let msg = NatsMessage(m)
            guard let reply = msg.reply else { continue }
            out.append(StoredMessage(data: msg.data, ackSubject: reply))
        }
        return out
    }

    /// Stops this node's interest; the durable consumer stays for the recipient's next connection.
    public func close() {
        guard lock.withLock({ done in defer { done = true }; return !done }) else { return }
        natsSubscription_Destroy(sub)
    }

    deinit { close() }
}

extension NatsConnection {
    /// Acknowledges a stored message (deletes it from the work queue). Does not wait.
    public func ack(_ m: String) throws(ClusterError) { try publish(m, Array("+ACK".utf8)) }
}
