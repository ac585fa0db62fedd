import Transport

/// Where `guest serve` listens and who may ask. Loopback only by default: a non-loopback bind
/// needs `allowRemote` and a token, checked (as `Authorization: Bearer TOKEN`) on every request.
public struct ServeConfiguration: Sendable {
    /// Default port: beside Ollama's 11434, so a tool pointed at "Ollama" needs one digit changed.
    public static let defaultPort: UInt16 = 11435

    public var host: String
    public var port: UInt16
    public var allowRemote: Bool
    /// When set, every request must carry it as a Bearer token (also on loopback). Never logged.
    public var token: String?
    /// Where the token came from (`--token-file`), announced in `serve.json` for `guest chat`.
    public var tokenFile: String?
    /// Web origins (`--allow-origin`, `http(s)://HOST[:PORT]`, lowercase) whose pages may call
    /// serve; every other cross-origin request is refused (`RequestGate`).
    public var allowedOrigins: [String] = []
    /// A streamed answer that has written nothing for this long gets a keep-alive
    /// (`guest serve --keep-alive-interval`; nil: never).
    public var keepAliveInterval: Duration? = ServeConfiguration.defaultKeepAliveInterval
    public static let defaultKeepAliveInterval: Duration = .seconds(5)
    /// How many Responses API answers are kept for `previous_response_id` (in memory).
    public var storedResponses = ResponseMemory.defaultMaxResponses

    public init(host: String = "127.0.0.1", port: UInt16 = ServeConfiguration.defaultPort,
                allowRemote: Bool = false, token: String? = nil, allowedOrigins: [String] = []) {
        self.host = host; self.port = port; self.allowRemote = allowRemote; self.token = token
        self.allowedOrigins = allowedOrigins
    }

    /// The checks made before any route (Host, Origin, content type).
    var gate: RequestGate {
        RequestGate(checkHost: Self.isLoopback(host), allowedOrigins: Set(allowedOrigins))
    }

    /// Adds one `--allow-origin` value (checked and normalized).
    public mutating func allow(origin: String) throws(LocalAPIError) {
        allowedOrigins.append(try RequestGate.parseOrigin(origin))
    }

    /// Throws `.remoteNeedsToken` for a non-loopback host without `allowRemote` and a token.
    public func validate() throws(LocalAPIError) {
        if !Self.isLoopback(host), !(allowRemote && !(token ?? "").isEmpty) {
            throw .remoteNeedsToken(host)
        }
    }

    /// 127.0.0.0/8 and ::1 (numeric only: the listener does not resolve names).
    public static func isLoopback(_ host: String) -> Bool { LoopbackNames.isAddress(host) }

    /// `HOST:PORT`, `[V6]:PORT`, or `:PORT` (loopback).
    public static func parseListen(_ s: String) throws(LocalAPIError) -> (host: String, port: UInt16) {
        guard let colon = s.lastIndex(of: ":"), let port = UInt16(s[s.index(after: colon)...]) else {
            throw .invalidListen(s)
        }
        var host = String(s[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.isEmpty { host = "127.0.0.1" }
        guard host.allSatisfy({ $0.isHexDigit || $0 == "." || $0 == ":" }) else { throw .invalidListen(s) }
        return (host, port)
    }
}

/// Constant-time comparison of a presented token with the configured one (the length is not
/// secret and is compared first).
func tokensMatch(_ presented: String, _ expected: String) -> Bool {
    let a = Array(presented.utf8), b = Array(expected.utf8)
    guard a.count == b.count else { return false }
    var diff: UInt8 = 0
    for i in a.indices { diff |= a[i] ^ b[i] }
    return diff == 0
}
