/// One `nats-server` node's configuration for the cluster tests (Tests/RelayServerTests/cluster)
/// and `bench-relay --cluster`: loopback only, JetStream on, explicit accounts (the relays' `RELAY`
/// with JetStream, `SYS` as system account; no implicit account, no anonymous user) and
/// authenticated routes to the other nodes. User/password rather than nkeys: a run pays no key
/// generation; deploy/cluster/ shows the nkey form. A fixture: no product module links it.
public struct NatsConfig: Sendable {
    public var name: String
    public var clientPort: Int
    public var clusterPort: Int
    public var monitorPort: Int
    /// JetStream's store directory.
    public var storeDirectory: String
    /// The other nodes' route (cluster) ports.
    public var routePorts: [Int]
    public var user: String
    public var password: String
    public var clusterName: String
    public var routePassword: String
    public var systemPassword: String
    /// Lines added at the end (e.g. a small `max_pending`).
    public var extra: String

    public init(name: String, clientPort: Int, clusterPort: Int, monitorPort: Int, storeDirectory: String, routePorts: [Int],
                user: String, password: String, clusterName: String, routePassword: String, systemPassword: String,
                extra: String = "") {
        self.name = name; self.clientPort = clientPort; self.clusterPort = clusterPort; self.monitorPort = monitorPort
        self.storeDirectory = storeDirectory; self.routePorts = routePorts; self.user = user; self.password = password
        self.clusterName = clusterName; self.routePassword = routePassword; self.systemPassword = systemPassword
        self.extra = extra
    }

    /// The file's text, for `nats-server -c FILE`.
    public var text: String {
        let routes = routePorts.map { "nats-route://route:\(routePassword)@127.0.0.1:\($0)" }
        return """
            server_name: \(name)
            listen: 127.0.0.1:\(clientPort)
            http: 127.0.0.1:\(monitorPort)
            jetstream { store_dir: "\(storeDirectory)", max_memory_store: 64MB, max_file_store: 1GB }
            accounts {
              RELAY { jetstream: enabled, users: [ { user: \(user), password: "\(password)" } ] }
              SYS { users: [ { user: sys, password: "\(systemPassword)" } ] }
            }
            system_account: SYS
            cluster {
              name: \(clusterName)
              listen: 127.0.0.1:\(clusterPort)
              authorization { user: route, password: "\(routePassword)", timeout: 2 }
              routes: [ \(routes.joined(separator: ", ")) ]
            }
            \(extra)
            """
    }

    /// Where Debian's package puts the server.
    public static var binary: String {
        ["/usr/sbin/nats-server", "/usr/bin/nats-server"].first { isExecutable($0) } ?? "/usr/sbin/nats-server"
    }

    /// The monitor's `/healthz` request: 200 once JetStream's meta group has a leader.
    public static let healthRequest = "GET /healthz HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n"
}

#if canImport(Glibc)
import Glibc
#endif

private func isExecutable(_ path: String) -> Bool { access(path, X_OK) == 0 }
