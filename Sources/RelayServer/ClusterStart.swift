import RelayCluster

extension ClusterNode {
    /// Connects to NATS, makes sure the mail stream exists in its shape, and listens for the
    /// answers to this node's live frames. Blocking (at start, before the relay listens).
    static func start(_ c: RelayConfig, hub: Hub) throws(RelayError) -> ClusterNode {
        let cc = c.cluster
        var s = NatsSettings()
        s.servers = cc.natsURLs
        s.name = "homebase-relay " + (cc.nodeName ?? "")
        s.user = cc.natsUser
        if let f = cc.natsPasswordFile {
            do { s.password = String(try readTextFile(f, limit: 4096).trimmed) } catch {
                throw .unreadableFile(key: "cluster-nats-password-file", path: f, reason: error.reason)
            }
        }
        s.credentialsFile = cc.natsCredentials
        s.nkeyPublic = cc.natsNkey
        s.nkeySeedFile = cc.natsNkeySeedFile
        s.caFile = cc.natsCA
        s.timeoutMs = cc.natsTimeout.milliseconds
        s.pingIntervalMs = cc.natsPingInterval.milliseconds
        s.maxPingsOut = cc.natsMaxPingsOut
        s.reconnectWaitMs = cc.natsReconnectWait.milliseconds
        let ref = HubRef(hub)
        do {
            let nats = try NatsConnection(s) { state in
                ref.onLoop { h in
                    h.cluster?.metrics.natsState = state.rawValue
                    h.log.warn("cluster: NATS link \(state.rawValue)")
                }
            }
            let node = ClusterNode(nats: nats, config: cc)
            do {
                try nats.ensureStream(.init(name: cc.mailStream, subjects: ["hb.m.>"], replicas: cc.replicas,
                                            maxAgeMs: c.maxTTL.milliseconds, duplicateWindowMs: cc.duplicateWindow.milliseconds))
                node.replies = try nats.subscribe(ClusterSubjects.replies(node: node.node)) { m in ref.onLoop { $0.clusterReply(m) } }
                try nats.flush()
            } catch {
                nats.close()
                throw error
            }
            return node
        } catch {
            throw .transport("cluster: \(error); check cluster-nats, the NATS user and that a NATS quorum is up")
        }
    }

    /// The relay stops: no more interest, answers or fetches; pending publishes are flushed.
    func stop() {
        replies?.cancel()
        nats.close()
    }
}
