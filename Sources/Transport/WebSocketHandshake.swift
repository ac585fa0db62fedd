import COpenSSL

/// The opening handshake (RFC 6455 section 4): server validation and the client's request.
public enum WebSocketHandshake {
    /// Section 1.3: appended to the client's key before hashing.
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// `Sec-WebSocket-Accept` for a key: base64(SHA-1(key + GUID)).
    public static func acceptValue(for key: String) -> String {
        let input = Array((key + guid).utf8)
        var digest = [UInt8](repeating: 0, count: 20)
        var len: UInt32 = 0
        _ = input.withUnsafeBytes { i in
            EVP_Digest(i.baseAddress, i.count, &digest, &len, EVP_sha1(), nil)
        }
        return base64(digest)
    }

    static func base64(_ bytes: [UInt8]) -> String {
        var out = [UInt8](repeating: 0, count: (bytes.count + 2) / 3 * 4 + 1)
        let n = EVP_EncodeBlock(&out, bytes, Int32(bytes.count))
        return String(decoding: out[0..<Int(n)], as: UTF8.self)
    }

    /// A key is base64 of 16 bytes: 22 alphabet characters then "==".
    static func isValidKey(_ key: String) -> Bool {
        let u = Array(key.utf8)
        guard u.count == 24, u[22] == UInt8(ascii: "="), u[23] == UInt8(ascii: "=") else { return false }
        return u[0..<22].allSatisfy { c in
            (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57)
                || c == UInt8(ascii: "+") || c == UInt8(ascii: "/")
        }
    }

    /// The server's answer to an upgrade request.
    public enum Decision: Equatable, Sendable {
        /// Send this 101 response, then speak WebSocket.
        case accept(HTTPResponse)
        /// Send this refusal, then close.
        case refuse(HTTPResponse)
    }

    public static func serverResponse(to r: HTTPRequest) -> Decision {
        func refuse(_ s: HTTPStatus, _ h: [(String, String)] = []) -> Decision {
            .refuse(HTTPResponse(status: s, headers: HTTPHeaders(h)))
        }
        guard r.method == "GET" else { return refuse(.methodNotAllowed, [("Allow", "GET")]) }
        guard r.version == "HTTP/1.1", r.headers.containsToken("upgrade", "websocket"),
              r.headers.containsToken("connection", "upgrade") else {
            return refuse(.upgradeRequired, [("Upgrade", "websocket"), ("Connection", "Upgrade")])
        }
        guard r.headers.values("sec-websocket-version") == ["13"] else {
            return refuse(.upgradeRequired, [("Sec-WebSocket-Version", "13")])
        }
        let keys = r.headers.values("sec-websocket-key")
        guard keys.count == 1, isValidKey(keys[0]) else { return refuse(.badRequest) }
        return .accept(HTTPResponse(status: .switchingProtocols, headers: HTTPHeaders([
            ("Upgrade", "websocket"), ("Connection", "Upgrade"),
            ("Sec-WebSocket-Accept", acceptValue(for: keys[0])),
        ])))
    }
}

/// The client's half of the handshake: a request with a fresh random key, and the check of the answer.
public struct WebSocketClientHandshake: Sendable {
    public let key: String
    public let request: [UInt8]

    /// `host` is sent as the Host header (add ":port" when not the default); `path` starts with "/".
    public init(host: String, path: String, headers: HTTPHeaders = HTTPHeaders()) {
        var rng = SystemRandomNumberGenerator()
        let raw = (0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) }
        key = WebSocketHandshake.base64(raw)
        var head = "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        head += "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        for f in headers.fields { head += "\(f.name): \(f.value)\r\n" }
        request = Array((head + "\r\n").utf8)
    }

    /// nil when the response completes the upgrade; otherwise why it does not.
    public func validate(_ r: HTTPResponseHead) -> TransportError? {
        guard r.status == 101 else { return .http(status: r.status) }
        guard r.headers.containsToken("upgrade", "websocket") else { return .handshake("missing Upgrade: websocket") }
        guard r.headers.containsToken("connection", "upgrade") else { return .handshake("missing Connection: Upgrade") }
        guard r.headers.values("sec-websocket-accept") == [WebSocketHandshake.acceptValue(for: key)] else {
            return .handshake("wrong Sec-WebSocket-Accept")
        }
        // We offer no extension and no subprotocol, so the server may select none.
        if !r.headers.values("sec-websocket-extensions").isEmpty { return .handshake("unrequested extension") }
        if !r.headers.values("sec-websocket-protocol").isEmpty { return .handshake("unrequested subprotocol") }
        return nil
    }
}
