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
                ref.onLoop { h in h.clusterLinkChanged(state) }
            }
            let node = ClusterNode(nats: nats, config: cc)
            do {
                let shape = NatsConnection.StreamShape(name: cc.mailStream, subjects: ["hb.m.>"], replicas: cc.replicas,
                                                      maxAgeMs: c.maxTTL.milliseconds, duplicateWindowMs: cc.duplicateWindow.milliseconds)
                // A NATS cluster that boots with the relays may take a few timeouts to place an
                // R3 stream: retried on timeout (`startAttempts` times), any other error at once.
                // The seen records (mail quotas: the recipient's account, the unseen-recipient TTL).
                let seen = NatsConnection.StreamShape(name: node.seenStream, subjects: ["hb.s.>"], replicas: cc.replicas,
                                                     maxAgeMs: c.maxTTL.milliseconds, duplicateWindowMs: 1_000, workQueue: false)
                for s in [shape, seen] {
                    for attempt in 1... {
                        do { try nats.ensureStream(s); break } catch where error.isTimeout && attempt < Self.startAttempts {
                            hub.log.warn("cluster: \(error); retrying (\(attempt) of \(Self.startAttempts))")
                        }
                    }
                }
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

    static let startAttempts = 5

    /// The relay stops: no more interest, answers or fetches; pending publishes are flushed.
    func stop() {
        replies?.cancel()
        nats.close()
    }
}
