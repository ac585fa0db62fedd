import CNats
import Glibc

/// The JetStream calls the relay's mail needs. Every call here blocks for a round trip (up to
/// the connection's timeout): callers run them off the event loop.
extension NatsConnection {
    /// The mail stream's shape (docs/CLUSTER.md says why each is so).
    public struct StreamShape: Sendable, Equatable {
        public var name: String
        public var subjects: [String]
        public var replicas: Int
        /// The relay's largest TTL: JetStream 2.9 has no per-message TTL.
        public var maxAgeMs: Int64
        /// Nats-Msg-Id dedupe window.
        public var duplicateWindowMs: Int64
        /// Work-queue retention (an ack deletes: the mail); false: limits (a record per subject).
        public var workQueue: Bool
        public init(name: String, subjects: [String], replicas: Int, maxAgeMs: Int64, duplicateWindowMs: Int64, workQueue: Bool = true) {
            self.name = name; self.subjects = subjects; self.replicas = replicas
            self.maxAgeMs = maxAgeMs; self.duplicateWindowMs = duplicateWindowMs; self.workQueue = workQueue
        }
    }

    /// Creates the stream, or updates it to this shape when it exists.
    public func ensureStream(_ shape: StreamShape) throws(ClusterError) {
        let strings = CStrings()
        var cfg = jsStreamConfig()
        jsStreamConfig_Init(&cfg)
        cfg.Name = strings.keep(shape.name)
        var subjects: [UnsafePointer<CChar>?] = shape.subjects.map { strings.keep($0) }
        cfg.SubjectsLen = Int32(subjects.count)
        cfg.Retention = shape.workQueue ? js_WorkQueuePolicy : js_LimitsPolicy
        cfg.Storage = js_FileStorage
        cfg.Replicas = Int64(shape.replicas)
        cfg.MaxAge = shape.maxAgeMs * 1_000_000
        cfg.Duplicates = shape.duplicateWindowMs * 1_000_000
        // One message per subject: a collapse key's subject holds only the newest frame.
        cfg.MaxMsgsPerSubject = 1
        cfg.Discard = js_DiscardOld
        var code = jsErrCode(rawValue: 0)
        let st: natsStatus = subjects.withUnsafeMutableBufferPointer { b in
            cfg.Subjects = b.baseAddress
            var s = js_AddStream(nil, js, &cfg, nil, &code)
            if s != NATS_OK, code == JSStreamNameExistErr { s = js_UpdateStream(nil, js, &cfg, nil, &code) }
            return s
        }
        try ClusterError.checkJS(st, code, "create stream \(shape.name)")
    }

    public enum PublishOutcome: Sendable, Equatable { case stored, duplicate }

    /// Publishes and waits for the stream's ack (stored on a quorum of replicas).
    public func publishDurable(_ subject: String, _ data: [UInt8], messageID: String, maxWaitMs: Int64) throws(ClusterError) -> PublishOutcome {
        var msg: OpaquePointer?
        let st = data.withUnsafeBytes { b in
            natsMsg_Create(&msg, subject, nil, b.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(b.count))
        }
        try ClusterError.check(st, "message")
        defer { natsMsg_Destroy(msg) }
        var opts = jsPubOptions()
        jsPubOptions_Init(&opts)
        opts.MaxWait = maxWaitMs
        var ack: UnsafeMutablePointer<jsPubAck>?
        var code = jsErrCode(rawValue: 0)
        let pst = messageID.withCString { id in
            opts.MsgId = id
            return js_PublishMsg(&ack, js, msg, &opts, &code)
        }
        defer { if let ack { jsPubAck_Destroy(ack) } }
        try ClusterError.checkJS(pst, code, "publish")
        return ack?.pointee.Duplicate == true ? .duplicate : .stored
    }

    /// Messages stored under `filter` (one per subject in the mail stream).
    public func count(stream: String, filter: String) throws(ClusterError) -> Int {
        try subjects(stream: stream, filter: filter).reduce(0) { $0 + $1.msgs }
    }

    /// The subjects holding messages under `filter`, with their counts (2.9's subject-filtered
    /// stream info: counts only, no bytes).
    public func subjects(stream: String, filter: String) throws(ClusterError) -> [(subject: String, msgs: Int)] {
        var opts = jsOptions()
        jsOptions_Init(&opts)
        opts.Wait = settings.timeoutMs
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var code = jsErrCode(rawValue: 0)
        let st = filter.withCString { f in
            opts.Stream.Info.SubjectsFilter = f
            return js_GetStreamInfo(&info, js, stream, &opts, &code)
        }
        try ClusterError.checkJS(st, code, "stream info")
        defer { jsStreamInfo_Destroy(info) }
        guard let list = info?.pointee.State.Subjects?.pointee else { return [] }
        return (0..<Int(list.Count)).map { (String(cString: list.List[$0].Subject), Int(list.List[$0].Msgs)) }
    }

    /// The data of the last message on `subject`; nil when there is none.
    public func lastMessage(stream: String, subject: String) throws(ClusterError) -> [UInt8]? {
        var opts = jsOptions()
        jsOptions_Init(&opts)
        opts.Wait = settings.timeoutMs
        var msg: OpaquePointer?
        var code = jsErrCode(rawValue: 0)
        let st = js_GetLastMsg(&msg, js, stream, subject, &opts, &code)
        if st != NATS_OK, code == JSNoMessageFoundErr { return nil }
        try ClusterError.checkJS(st, code, "last message")
        defer { natsMsg_Destroy(msg) }
        let n = Int(natsMsg_GetDataLength(msg))
        guard n > 0, let p = natsMsg_GetData(msg) else { return [] }
        return p.withMemoryRebound(to: UInt8.self, capacity: n) { Array(UnsafeBufferPointer(start: $0, count: n)) }
    }

    /// Deletes every message on `subject` (a collapsed frame the sender's newer one replaced).
    public func purge(stream: String, subject: String) throws(ClusterError) {
        var opts = jsOptions()
        jsOptions_Init(&opts)
        opts.Wait = settings.timeoutMs
        var code = jsErrCode(rawValue: 0)
        let st = subject.withCString { f in
            opts.Stream.Purge.Subject = f
            return js_PurgeStream(js, stream, &opts, &code)
        }
        try ClusterError.checkJS(st, code, "purge")
    }

    /// A durable pull consumer on `filter` (created or bound: nodes share it, one per recipient).
    public func pullConsumer(stream: String, filter: String, durable: String, ackWaitMs: Int64, maxAckPending: Int,
                             inactiveMs: Int64) throws(ClusterError) -> MailConsumer {
        var so = jsSubOptions()
        jsSubOptions_Init(&so)
        so.Config.AckPolicy = js_AckExplicit
        so.Config.AckWait = ackWaitMs * 1_000_000
        so.Config.MaxAckPending = Int64(maxAckPending)
        so.Config.InactiveThreshold = inactiveMs * 1_000_000
        var sub: OpaquePointer?
        var code = jsErrCode(rawValue: 0)
        let st = stream.withCString { s in
            so.Stream = s
            return js_PullSubscribe(&sub, js, filter, durable, nil, &so, &code)
        }
        try ClusterError.checkJS(st, code, "pull consumer")
        guard let sub else { throw .unexpected("no pull subscription") }
        return MailConsumer(sub, connection: self, stream: stream, durable: durable)
    }
}

/// C strings kept alive for the length of one call.
final class CStrings {
    private var kept: [UnsafeMutablePointer<CChar>] = []
    func keep(_ s: String) -> UnsafePointer<CChar> { let p = strdup(s)!; kept.append(p); return UnsafePointer(p) }
    deinit { kept.forEach { free($0) } }
}
