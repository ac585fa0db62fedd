import RelayCluster
import RelayWire

/// This node's NATS link went down or came back (libnats' state callback, on the loop).
///
/// Down (the server closed it, a slow-consumer cut, or `cluster-nats-max-pings-out` pings
/// unanswered on a link that died without a FIN): the node fails closed. Its devices are told
/// `error internal-error` and closed, so they reconnect (to another node, or here once the link
/// is back); their subjects would otherwise route to a node that cannot answer. Mail and joins
/// are refused at once until the link is back (`clusterStoreMail`, `clusterJoin`).
extension Hub {
    func clusterLinkChanged(_ state: NatsConnection.State) {
        guard let c = cluster else { return }
        c.metrics.natsState = state.rawValue
        log.warn("cluster: NATS link \(state.rawValue)")
        guard state != .connected else { return }
        let held = c.heldSessions()
        c.metrics.devicesClosedNatsDown += held.count
        for s in held {
            c.remove(s)
            fail(s, .internalError, Self.clusterDownText)
        }
    }

    static let clusterDownText = "this relay node lost its link to the cluster; reconnect (another node, or this one later)"
}

extension ClusterNode {
    /// Every session holding a device here (joined or joining).
    func heldSessions() -> [Session] { Array(bySerial.values) }
}
