import CNats

/// A message copied out of libnats (the C message is freed before the handler runs).
public struct NatsMessage: Sendable {
    public let subject: String
    public let reply: String?
    public let data: [UInt8]
    /// The server's "no responders" status: nothing subscribes to the subject this replies to.
    public let noResponders: Bool

    init(_ m: OpaquePointer) {
        subject = String(cString: natsMsg_GetSubject(m))
        reply = natsMsg_GetReply(m).map { String(cString: $0) }
        let n = Int(natsMsg_GetDataLength(m))
        if n > 0, let p = natsMsg_GetData(m) {
            data = p.withMemoryRebound(to: UInt8.self, capacity: n) { Array(UnsafeBufferPointer(start: $0, count: n)) }
        } else {
            data = []
        }
        noResponders = natsMsg_IsNoResponders(m)
    }
}
