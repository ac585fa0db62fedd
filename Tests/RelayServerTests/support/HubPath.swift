import Glibc
@testable import RelayServer
@testable import Transport

/// How a test's devices reach the relay's hub; the same test bodies run both ways
/// (Hummingbird's `.router` / `.live`).
/// - `memory`: the hub is handed a WebSocket over a socketpair: no listener, no TCP, no HTTP
///   upgrade, no port; only the hub, its sessions and the WebSocket codec are exercised.
/// - `live`: the device dials the relay's real listener on loopback and upgrades over HTTP.
enum HubPath: String, CaseIterable, Sendable, CustomStringConvertible {
    case memory, live
    var description: String { rawValue }
}

extension TestClient {
    /// A device attached to `relay`'s hub directly (HubPath.memory). The server side gets the
    /// connection settings the relay's listener would give it.
    static func attach(to relay: Relay, server: LoopThread, clients: LoopThread) throws -> TestClient {
        var fds: [Int32] = [-1, -1]
        let flags = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, flags, 0, &fds) == 0 else { throw TestSetupError("socketpair: errno \(errno)") }
        let (hubSide, deviceSide) = (fds[0], fds[1])
        let serverLoop = server.loop, clientLoop = clients.loop
        try server.sync {
            let w = Relay.serverConfiguration(relay.hub.config)
            let c = Connection(loop: serverLoop, fd: hubSide, peer: "127.0.0.1:1", tls: nil, configuration: w.connection)
            let ws = WebSocket(connection: c, role: .server, request: nil, maxMessageSize: w.maxMessageSize,
                               closeTimeout: w.closeTimeout, messageTimeout: w.messageTimeout)
            c.start(ws)
            relay.hub.accept(ws)
        }
        return try attached(clients.sync {
            let c = Connection(loop: clientLoop, fd: deviceSide, peer: "127.0.0.1:2", tls: nil,
                               configuration: ConnectionConfiguration())
            let ws = WebSocket(connection: c, role: .client, request: nil, maxMessageSize: 4 * 1024 * 1024,
                               closeTimeout: .seconds(5))
            wire(ws)
            c.start(ws)
            return ws
        })
    }
}
