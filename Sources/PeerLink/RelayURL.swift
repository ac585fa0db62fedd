// The relay's address as configured: `ws://host[:port][/path]` or `wss://...`. The origin
// (`scheme://host:port`) is what the device expects the challenge to name and what it signs.

/// A parsed relay URL. Host names are compared case-insensitively; IPv6 literals are held
/// without brackets; a missing port is the scheme's default (80 / 443); a missing or bare `/`
/// path is `/v1/connect`. Equal values (and `description`) are the same relay however spelled.
public struct RelayURL: Equatable, Sendable, CustomStringConvertible {
    /// `wss` (TLS) or `ws` (plain).
    public var secure: Bool
    /// Lowercased host name or address literal (IPv6 without brackets).
    public var host: String
    public var port: UInt16
    /// The upgrade path, `/v1/connect` when the URL has none.
    public var path: String

    /// Parses `ws://host[:port][/path]` or `wss://...` (no user info, no fragment).
    public init(parsing text: String) throws(PeerLinkError) {
        let lower = text.lowercased()
        let rest: Substring
        if lower.hasPrefix("wss://") { secure = true; rest = text.dropFirst(6) }
        else if lower.hasPrefix("ws://") { secure = false; rest = text.dropFirst(5) }
        else { throw .invalidURL("scheme must be ws:// or wss://") }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let tail = rest.dropFirst(authority.count)
        guard !tail.contains("#") else { throw .invalidURL("fragments are not allowed") }
        // A bare "/" is no path, as in any URL (`wss://h/` is `wss://h`): one relay, one spelling.
        path = tail.isEmpty || tail == "/" ? "/v1/connect" : (tail.first == "?" ? "/" + tail : String(tail))
        guard !authority.contains("@") else { throw .invalidURL("user info is not allowed") }
        var hostPart = authority
        var portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .invalidURL("unclosed [ in host") }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { throw .invalidURL("junk after ]") }
                portPart = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        }
        guard !hostPart.isEmpty else { throw .invalidURL("no host") }
        host = hostPart.lowercased()
        if let portPart {
            guard let p = UInt16(portPart), p > 0 else { throw .invalidURL("port must be 1-65535") }
            port = p
        } else {
            port = secure ? 443 : 80
        }
    }

    /// `ws://host:port` or `wss://host:port`, port always written: the origin the device dialled.
    public var origin: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return "\(secure ? "wss" : "ws")://\(h):\(port)"
    }

    public var description: String { origin + path }

    /// Whether a challenge's `origin` names this relay: same scheme, host and port (default ports
    /// filled in, host case ignored, no path). A relay that writes `wss://relay.example` and a
    /// device that dialled `wss://relay.example:443` agree.
    public func matchesOrigin(_ origin: String) -> Bool {
        guard let other = try? RelayURL(parsing: origin) else { return false }
        let bare = !origin.dropFirst(secure ? 6 : 5).contains("/")
        return bare && other.secure == secure && other.host == host && other.port == port
    }
}
