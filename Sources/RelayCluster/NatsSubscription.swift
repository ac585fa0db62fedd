import CNats
import Synchronization

/// A core NATS subscription with a Swift handler (called on a libnats thread).
///
/// `@unchecked Sendable`: the subscription pointer is freed once, under `lock`; the handler
/// box is released by libnats' on-complete callback, after the last handler call has returned.
public final class NatsSubscription: @unchecked Sendable {
    private let lock = Mutex<Bool>(false) // true once cancelled
    private let sub: OpaquePointer

    init(_ nc: OpaquePointer, _ subject: String, _ handler: @escaping @Sendable (NatsMessage) -> Void) throws(ClusterError) {
        let box = Unmanaged.passRetained(HandlerBox(handler)).toOpaque()
        var sub: OpaquePointer?
        let st = natsConnection_Subscribe(&sub, nc, subject, { _, _, m, c in
            guard let m else { return }
            let msg = NatsMessage(m)
            natsMsg_Destroy(m)
            Unmanaged<HandlerBox>.fromOpaque(c!).takeUnretainedValue().body(msg)
        }, box)
        guard st == NATS_OK, let sub else {
            Unmanaged<HandlerBox>.fromOpaque(box).release()
            try ClusterError.check(st, "subscribe")
            throw .unexpected("no subscription")
        }
        natsSubscription_SetOnCompleteCB(sub, { c in Unmanaged<HandlerBox>.fromOpaque(c!).release() }, box)
        self.sub = sub
    }

    /// Stops the interest (an UNSUB, not waited for) and frees the subscription.
    public func cancel() {
        guard lock.withLock({ done in defer { done = true }; return !done }) else { return }
        natsSubscription_Unsubscribe(sub)
        natsSubscription_Destroy(sub)
    }

    deinit { cancel() }
}

final class HandlerBox: Sendable {
    let body: @Sendable (NatsMessage) -> Void
    init(_ body: @escaping @Sendable (NatsMessage) -> Void) { self.body = body }
}
