import Basics
import Transport

extension PeerLink {
    /// How the relay's certificate is checked on `wss://` (ignored on `ws://`).
    public enum Trust: Equatable, Sendable {
        /// The system's CA store, with host name verification.
        case systemRoots
        /// A CA bundle (PEM file), with host name verification.
        case caFile(String)
        /// Exactly the certificate whose DER SHA-256 is this (a self-signed relay). 32 bytes.
        case pinnedSHA256([UInt8])

        /// A pin written as 64 hex digits (either case, `:` separators allowed).
        public static func pinned(hex: String) throws(PeerLinkError) -> Trust {
            guard let out = bytes(fromHex: hex.filter { $0 != ":" }), out.count == 32 else { throw .invalidPin }
            return .pinnedSHA256(out)
        }
    }

    /// Everything tunable about a link. Every interval is a `Duration` so tests run in milliseconds.
    public struct Configuration: Sendable {
        /// The relay, or the first node of a relay cluster: its origin is the account's relay
        /// (proofs, tokens and standing orders are made for it).
        public var relay: RelayURL
        /// Other nodes of the same cluster (docs/CLUSTER.md "Devices"), dialled in turn after
        /// `relay`: each failed or lost connection moves to the next, with the same backoff.
        /// A node's challenge may name its own origin or `relay`'s (nodes sharing one `origin`).
        /// Same scheme as `relay` (one TLS context). Set with `addAlternates`.
        public private(set) var alternates: [RelayURL] = []
        public var trust: Trust = .systemRoots
        public var backoff = Backoff()
        /// TCP connect + TLS handshake + WebSocket upgrade.
        public var connectTimeout: Duration = .seconds(10)
        /// From the upgrade to `auth-ok`.
        public var authTimeout: Duration = .seconds(10)
        /// How often an open link pings the relay (our keepalive; also the live-outcome barrier).
        public var pingInterval: Duration = .seconds(15)
        /// Nothing heard from the relay for this long: the link is dead (a partition shows here,
        /// long before TCP would notice). Keep it above `pingInterval` plus a round trip.
        public var deadLinkTimeout: Duration = .seconds(45)
        /// How long a live frame waits for the pong that settles its outcome before `.failed(.timeout)`.
        public var liveTimeout: Duration = .seconds(5)
        /// TCP_USER_TIMEOUT on the relay socket: data the relay leaves unacknowledged this long
        /// fails the link (a dead path is found in seconds while we send; 0: the kernel's ~15 min).
        /// 10 s rides out several retransmissions on a lossy path.
        public var tcpUserTimeout: Duration = .seconds(10)
        /// Mail frames waiting for `stored` (each up to ~64 KiB).
        public var outboxCapacity = 256
        /// Frame ids remembered for dedupe (~100 bytes each).
        public var dedupeCapacity = 4096
        /// Inbound events buffered for a slow consumer; beyond it frames are not delivered (mail
        /// stays unacked at the relay and comes again on the next connection; live is lost).
        public var inboundBuffer = 1024
        /// Largest WebSocket message accepted from the relay (one relay frame).
        public var maxMessageSize = 128 * 1024
        /// One line per connection event (lost, refused, malformed); never payloads, tokens or keys' secrets.
        public var log: (@Sendable (String) -> Void)?
        /// How the link opens its WebSocket: TCP, TLS and the HTTP upgrade (`WebSocketClient.connect`).
        /// Internal, for tests only (`@testable`): they hand the relay's hub one end of a
        /// socketpair here, so the link's own code runs with no listener (RelayRoutingTests'
        /// `ProviderPath.memory`).
        var dial: @Sendable (EventLoop, WebSocketClient.Configuration,
                             @escaping @Sendable (Result<WebSocket, TransportError>) -> Void) -> Void = {
            WebSocketClient.connect(loop: $0, configuration: $1, completion: $2)
        }

        /// `relayURL` is `ws://host:port/v1/connect` or `wss://...`.
        public init(relayURL: String, trust: Trust = .systemRoots) throws(PeerLinkError) {
            relay = try RelayURL(parsing: relayURL)
            self.trust = trust
            if case .pinnedSHA256(let p) = trust, p.count != 32 { throw .invalidPin }
        }

        /// Adds cluster nodes to dial after `relay` (duplicates of a known one are skipped).
        public mutating func addAlternates(_ urls: [String]) throws(PeerLinkError) {
            for text in urls {
                let url = try RelayURL(parsing: text)
                guard url.secure == relay.secure else {
                    throw .invalidURL("\(text): every node of one cluster is dialled with the same scheme as \(relay.origin)")
                }
                if url != relay && !alternates.contains(url) { alternates.append(url) }
            }
        }

        /// `relay` then the alternates: the order nodes are dialled in.
        public var dialOrder: [RelayURL] { [relay] + alternates }

        func tlsContext() throws(PeerLinkError) -> TLSClientContext? {
            guard relay.secure else { return nil }
            let t: TLSTrust
            switch trust {
            case .systemRoots: t = .systemRoots
            case .caFile(let path): t = .caFile(path)
            case .pinnedSHA256(let pin): t = .pinnedSHA256(pin)
            }
            do { return try TLSClientContext(trust: t) } catch { throw .tls(error.description) }
        }

        func webSocketConfiguration(dialling node: RelayURL, tls: TLSClientContext?) -> WebSocketClient.Configuration {
            var c = WebSocketClient.Configuration(host: node.host, port: node.port, tls: tls)
            c.path = node.path
            c.timeout = connectTimeout
            c.maxMessageSize = maxMessageSize
            c.connection.userTimeout = tcpUserTimeout
            return c
        }
    }
}
