import Glibc
@testable import PeerLink
@testable import RelayServer
@testable import Transport

/// How a test's guest and scripted Homebase reach the relay; the same test bodies run both
/// ways (Hummingbird's `.router` / `.live`; RelayServerTests' `HubPath` is the hub's own).
/// - `memory`: each link's WebSocket is one end of a socketpair whose other end the relay's
///   hub accepts (the link's `dial` seam): no listener, TCP or HTTP upgrade, no port dialled.
///   The provider, Courier, PeerLink, the hub and the WebSocket codec are the real ones.
/// - `live`: each link dials the relay's real listener on loopback and upgrades over HTTP.
enum ProviderPath: String, CaseIterable, Sendable, CustomStringConvertible {
    case memory, live
    var description: String { rawValue }

    /// Sets `configuration` to reach `relay` this way.
    func route(_ configuration: inout PeerLink.Configuration, to relay: LiveRelay) {
        guard self == .memory else { return }
        configuration.dial = { loop, settings, done in relay.attachInMemory(loop, settings, done) }
    }
}

extension LiveRelay {
    /// `ProviderPath.memory`'s dial, called on the link's loop: the device side is the link's
    /// WebSocket, the other side goes to the hub on the relay's loop with the connection
    /// settings its listener would give it (the relay at the time: restarts included).
    func attachInMemory(_ loop: EventLoop, _ settings: WebSocketClient.Configuration,
                        _ done: @escaping @Sendable (Result<WebSocket, TransportError>) -> Void) {
        var fds: [Int32] = [-1, -1]
        let flags = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, flags, 0, &fds) == 0 else {
            done(.failure(.system(call: "socketpair", errno: errno)))
            return
        }
        let (hubSide, deviceSide) = (fds[0], fds[1])
        // Loopback TCP buffers up to tcp_wmem's maximum (4 MiB here) per direction; a socketpair
        // holds net.core.wmem_default (208 KiB). With that alone the relay's slow-receiver drop
        // fires on a 5 MB burst that loopback absorbs, so both ends get loopback's room.
        var room = Int32(4 << 20)
        for fd in fds { _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &room, socklen_t(MemoryLayout<Int32>.size)) }
        self.loop.execute { [self] in
            let hub = relay.hub
            let w = Relay.serverConfiguration(hub.config)
            let c = Connection(loop: self.loop, fd: hubSide, peer: "127.0.0.1:1", tls: nil, configuration: w.connection)
            let ws = WebSocket(connection: c, role: .server, request: nil, maxMessageSize: w.maxMessageSize,
                               closeTimeout: w.closeTimeout, messageTimeout: w.messageTimeout)
            c.start(ws)
            hub.accept(ws)
        }
        let c = Connection(loop: loop, fd: deviceSide, peer: "127.0.0.1:2", tls: nil, configuration: settings.connection)
        let ws = WebSocket(connection: c, role: .client, request: nil, maxMessageSize: settings.maxMessageSize,
                           closeTimeout: settings.closeTimeout)
        c.start(ws)
        done(.success(ws))
    }
}
