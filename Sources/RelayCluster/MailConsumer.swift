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
    private let stream: String
    private let durable: String

    init(_ sub: OpaquePointer, connection: NatsConnection, stream: String, durable: String) {
        self.connection = connection
        self.sub = sub
        self.stream = stream
        self.durable = durable
    }

    /// Up to `batch` messages available now; empty only when the consumer says it holds none
    /// beyond `held` (those handed out and not yet acked by this node's device).
    ///
    /// libnats answers an empty no-wait fetch with NATS_TIMEOUT, as it does a fetch nobody
    /// answered (a consumer without a leader after a NATS node died): the consumer's own count
    /// tells the two apart. Still held: `.mailRemains` (the caller fetches again later).
    public func fetch(batch: Int, held: Int) throws(ClusterError) -> [StoredMessage] {
        let got = try fetchNow(batch: batch)
        guard got.isEmpty else { return got }
        let left = try outstanding() - held
        if left > 0 { throw .mailRemains(left) }
        return []
    }

    /// Messages the consumer has not yet delivered plus those delivered and not acked.
    public func outstanding() throws(ClusterError) -> Int {
        var opts = jsOptions()
        jsOptions_Init(&opts)
        opts.Wait = connection.settings.timeoutMs
        var info: UnsafeMutablePointer<jsConsumerInfo>?
        var code = jsErrCode(rawValue: 0)
        // By name, not through the subscription: libnats refuses that ("Invalid Subscription")
        // on a subscription bound to a durable another node created.
        let st = js_GetConsumerInfo(&info, connection.js, stream, durable, &opts, &code)
        try ClusterError.checkJS(st, code, "consumer info")
        defer { jsConsumerInfo_Destroy(info) }
        guard let i = info?.pointee else { throw .unexpected("no consumer info") }
        return Int(i.NumPending) + Int(i.NumAckPending)
    }

    private func fetchNow(batch: Int) throws(ClusterError) -> [StoredMessage] {
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
