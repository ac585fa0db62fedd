/// An HTTP status to answer with: code and reason phrase.
public struct HTTPStatus: Equatable, Sendable {
    public let code: Int
    public let reason: String
    public init(code: Int, reason: String) { self.code = code; self.reason = reason }

    public static let ok = HTTPStatus(code: 200, reason: "OK")
    public static let switchingProtocols = HTTPStatus(code: 101, reason: "Switching Protocols")
    public static let badRequest = HTTPStatus(code: 400, reason: "Bad Request")
    public static let notFound = HTTPStatus(code: 404, reason: "Not Found")
    public static let methodNotAllowed = HTTPStatus(code: 405, reason: "Method Not Allowed")
    public static let payloadTooLarge = HTTPStatus(code: 413, reason: "Content Too Large")
    public static let uriTooLong = HTTPStatus(code: 414, reason: "URI Too Long")
    public static let upgradeRequired = HTTPStatus(code: 426, reason: "Upgrade Required")
    public static let headersTooLarge = HTTPStatus(code: 431, reason: "Request Header Fields Too Large")
    public static let notImplemented = HTTPStatus(code: 501, reason: "Not Implemented")
    public static let serviceUnavailable = HTTPStatus(code: 503, reason: "Service Unavailable")
    public static let versionNotSupported = HTTPStatus(code: 505, reason: "HTTP Version Not Supported")
}

/// Header fields in arrival order; lookups ignore ASCII case of the name.
public struct HTTPHeaders: Equatable, Sendable {
    public private(set) var fields: [(name: String, value: String)] = []

    public init(_ fields: [(String, String)] = []) {
        for (n, v) in fields { add(n, v) }
    }
    public mutating func add(_ name: String, _ value: String) { fields.append((name, value)) }

    /// The first value of `name`, or nil.
    public subscript(name: String) -> String? {
        fields.first { Self.same($0.name, name) }?.value
    }
    /// Every value of `name`, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { Self.same($0.name, name) }.map(\.value)
    }
    /// Whether any comma-separated element of any `name` value equals `token` (ASCII case ignored),
    /// as in `Connection: keep-alive, Upgrade`.
    public func containsToken(_ name: String, _ token: String) -> Bool {
        values(name).contains { v in
            v.split(separator: ",").contains { Self.same($0.trimmingSpaces, token) }
        }
    }
    public static func == (a: HTTPHeaders, b: HTTPHeaders) -> Bool {
        a.fields.count == b.fields.count
            && zip(a.fields, b.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
    static func same<A: StringProtocol, B: StringProtocol>(_ a: A, _ b: B) -> Bool {
        a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { lower($0) == lower($1) }
    }
    static func lower(_ c: UInt8) -> UInt8 { (c >= 65 && c <= 90) ? c + 32 : c }
}

extension StringProtocol {
    var trimmingSpaces: Substring {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return s
    }
}

/// A parsed request: method, origin-form target, headers and a bounded body.
public struct HTTPRequest: Equatable, Sendable {
    public var method: String
    /// Path plus query, always starting with "/".
    public var target: String
    public var version: String
    public var headers: HTTPHeaders
    public var body: [UInt8]

    /// The target without its query string.
    public var path: Substring { target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0] }
}

/// A small complete response for plain endpoints (`/healthz`) and refusals.
/// Always sent with `Content-Length` and `Connection: close`: plain endpoints get one answer per connection.
public struct HTTPResponse: Equatable, Sendable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status; self.headers = headers; self.body = body
    }
    public init(status: HTTPStatus, text: String) {
        self.init(status: status, headers: HTTPHeaders([("Content-Type", "text/plain; charset=utf-8")]),
                  body: Array(text.utf8))
    }

    /// The bytes on the wire (head and body).
    public func encoded() -> [UInt8] {
        var head = "HTTP/1.1 \(status.code) \(status.reason)\r\n"
        for f in headers.fields { head += "\(f.name): \(f.value)\r\n" }
        if status.code != 101 {
            head += "Content-Length: \(body.count)\r\nConnection: close\r\n"
        }
        head += "\r\n"
        return Array(head.utf8) + body
    }
}
