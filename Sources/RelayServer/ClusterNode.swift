import Dispatch
import RelayCluster
import RelayWire

/// A relay node's share of the cluster, owned by the event loop like the hub: the NATS link,
/// the devices it holds (their subscriptions and mail consumers) and the cluster counters.
/// NATS calls that block run on `work` (or a device's own serial queue), never on the loop.
final class ClusterNode {
    /// One authenticated (or joining) device of this node.
    final class Device {
        let key: Bytes32
        let serial: UInt64
        let authMs: Int64
        var subscription: NatsSubscription?
        /// Its mail consumer; created, fetched and closed on `queue` only.
        let mail: ConsumerSlot
        let queue: DispatchQueue
        var joining = true
        var fetching = false
        var fetchAgain = false
        /// Live frames that came while joining (the sender saw the interest): handed over after
        /// `auth-ok`, or answered `not-here` if the join fails. Up to the send queue's frames.
        var early: [(frame: [UInt8], reply: String?)] = []
        /// Frame id → the stream's ack subject of mail handed to this connection.
        var acks: [Bytes16: String] = [:]

        init(key: Bytes32, serial: UInt64, authMs: Int64) {
            self.key = key; self.serial = serial; self.authMs = authMs
            mail = ConsumerSlot()
            queue = DispatchQueue(label: "relay-cluster-device")
        }
    }

    let nats: NatsConnection
    let node: String
    let config: ClusterConfig
    /// Mail publishes and joins' flushes: blocking round trips, off the loop.
    let work = DispatchQueue(label: "relay-cluster", attributes: .concurrent)
    private(set) var devices: [ObjectIdentifier: Device] = [:]
    private(set) var bySerial: [UInt64: Session] = [:]
    private var nextSerial: UInt64 = 1
    var replies: NatsSubscription?
    var metrics = ClusterMetrics()
    /// The stream of seen records, `hb.s.<kh>` (one per key, kept for max-ttl): the cluster's
    /// `seen` table of the SQLite mailbox.
    var seenStream: String { config.mailStream + "_SEEN" }

    init(nats: NatsConnection, config: ClusterConfig) {
        self.nats = nats
        self.config = config
        node = config.nodeName ?? "relay"
    }

    func device(_ s: Session) -> Device? { devices[ObjectIdentifier(s)] }
    func session(serial: UInt64) -> Session? { bySerial[serial] }

    func add(_ s: Session, key: Bytes32, authMs: Int64) -> Device {
        let d = Device(key: key, serial: nextSerial, authMs: authMs)
        nextSerial += 1
        devices[ObjectIdentifier(s)] = d
        bySerial[d.serial] = s
        return d
    }

    /// Forgets `s`: its interest ends now; its consumer closes on its own queue (after any fetch).
    func remove(_ s: Session) {
        guard let d = devices.removeValue(forKey: ObjectIdentifier(s)) else { return }
        bySerial[d.serial] = nil
        // Frames that came while it joined: their senders hear not-here, never nothing.
        for case let (_, reply?) in d.early { try? nats.publish(reply, [ClusterMessage.Answer.notHere.rawValue]) }
        d.early = []
        d.subscription?.cancel()
        d.subscription = nil
        let slot = d.mail
        d.queue.async { slot.close() }
    }

    /// The serial a sending session's answers come back to (it joined: it has one).
    func serial(of s: Session) -> UInt64 { devices[ObjectIdentifier(s)]?.serial ?? 0 }
}

/// A device's mail consumer, touched only on that device's serial queue.
/// `@unchecked Sendable`: confined to one serial DispatchQueue (Device.queue).
final class ConsumerSlot: @unchecked Sendable {
    var consumer: MailConsumer?
    var closed = false
    func close() { consumer?.close(); consumer = nil; closed = true }
}

/// Reaches the hub from NATS threads: dereferenced only inside `loop.execute`.
/// `@unchecked Sendable`: the hub is loop-confined; this box only carries it to the loop.
final class HubRef: @unchecked Sendable {
    weak var hub: Hub?
    init(_ hub: Hub) { self.hub = hub }
    func onLoop(_ body: @escaping @Sendable (Hub) -> Void) {
        guard let loop = hub?.loop else { return }
        loop.execute { [self] in if let h = hub { body(h) } }
    }
}
