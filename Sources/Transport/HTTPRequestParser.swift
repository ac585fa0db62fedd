/// Incremental HTTP/1.1 request parser: request line, headers, and a small `Content-Length` body.
///
/// Feed whatever bytes arrived; it answers `.needMore`, the complete `.request`, or `.reject`
/// with the status to answer before closing. Time limits (slow senders) belong to the
/// connection: the parser only counts bytes.
public struct HTTPRequestParser {
    public struct Limits: Sendable {
        /// Request line plus all header lines plus CRLFs. 8 KiB is what nginx and Go accept by default.
        public var maxHeadBytes: Int = 8 * 1024
        /// Header fields; a flood of tiny fields is refused before it costs memory.
        public var maxHeaderCount: Int = 64
        /// Request line alone (answered 414 when over).
        public var maxRequestLineBytes: Int = 2 * 1024
        /// Bodies are for tiny plain endpoints only.
        public var maxBodyBytes: Int = 16 * 1024
        public init() {}
    }

    public enum Action: Equatable {
        case needMore
        case request(HTTPRequest)
        case reject(HTTPStatus)
    }

    private enum State { case head, body(HTTPRequest, Int), done }

    public let limits: Limits
    private var scanner: HTTPHeadScanner
    private var state = State.head
    private var body: [UInt8] = []
    private var remainder: [UInt8] = []
    /// After a `.reject` of a well-formed head (413: body too large), that head (body empty) and
    /// how many body bytes the client still has to send: the server may read and discard them,
    /// so the client sees the status instead of a reset.
    public private(set) var refusedHead: HTTPRequest?
    public private(set) var refusedBodyRemaining = 0

    public init(limits: Limits = Limits()) {
        self.limits = limits
        scanner = HTTPHeadScanner(maxBytes: limits.maxHeadBytes)
    }

    /// Feeds more bytes. After `.request` or `.reject` the parser is done; bytes that followed the
    /// request (an eager WebSocket frame, garbage) are in `takeRemainder()`.
    public mutating func parse(_ bytes: UnsafeRawBufferPointer) -> Action {
        switch state {
        case .done:
            remainder.append(contentsOf: bytes)
            return .needMore
        case .body(let request, let length):
            body.append(contentsOf: bytes)
            return finishBody(request, length)
        case .head:
            scanner.append(bytes)
            return scanHead()
        }
    }

    public mutating func parse(_ bytes: [UInt8]) -> Action {
        bytes.withUnsafeBytes { parse($0) }
    }

    /// Bytes received after the request's end.
    public mutating func takeRemainder() -> [UInt8] {
        defer { remainder = [] }
        return remainder
    }

    private mutating func scanHead() -> Action {
        switch scanner.scan() {
        case .needMore:
            // A request line that is already too long is answered 414 before the head limit.
            if !scanner.buffer.contains(13), scanner.buffer.count > limits.maxRequestLineBytes {
                return reject(.uriTooLong)
            }
            return .needMore
        case .tooLarge: return reject(scanner.buffer.contains(13) ? .headersTooLarge : .uriTooLong)
        case .malformed: return reject(.badRequest)
        case .head(let lines, let length):
            let rest = scanner.takeBytes(from: length)
            switch HTTPRequestHead.parse(lines, limits: limits) {
            case .refusedBody(let head, let length):
                refusedHead = head
                refusedBodyRemaining = max(0, length - rest.count)
                return reject(.payloadTooLarge)
            case .failure(let status): return reject(status)
            case .success(let (request, bodyLength)):
                body = rest
                return finishBody(request, bodyLength)
            }
        }
    }

    private mutating func finishBody(_ request: HTTPRequest, _ length: Int) -> Action {
        guard body.count >= length else {
            state = .body(request, length)
            return .needMore
        }
        var r = request
        r.body = Array(body[..<length])
        remainder = Array(body[length...])
        body = []
        state = .done
        return .request(r)
    }

    private mutating func reject(_ s: HTTPStatus) -> Action {
        state = .done
        scanner = HTTPHeadScanner(maxBytes: 0)
        return .reject(s)
    }
}

/// Validation of a request head once its lines are split.
enum HTTPRequestHead {
    enum Outcome {
        case success((HTTPRequest, Int)), failure(HTTPStatus)
        /// A well-formed head whose declared body is over the limit.
        case refusedBody(HTTPRequest, Int)
    }

    static func parse(_ lines: [ArraySlice<UInt8>], limits: HTTPRequestParser.Limits) -> Outcome {
        guard let first = lines.first else { return .failure(.badRequest) }
        if first.count > limits.maxRequestLineBytes { return .failure(.uriTooLong) }
        let parts = first.split(separator: 32, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(HTTPFieldLine.isToken) else {
            return .failure(.badRequest)
        }
        let target = parts[1]
        guard target.first == UInt8(ascii: "/"), target.allSatisfy({ $0 > 32 && $0 < 127 }) else {
            return .failure(.badRequest)
        }
        let version = String(decoding: parts[2], as: UTF8.self)
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            return .failure(version.hasPrefix("HTTP/") ? .versionNotSupported : .badRequest)
        }
        if lines.count - 1 > limits.maxHeaderCount { return .failure(.headersTooLarge) }
        guard let headers = HTTPFieldLine.headers(lines[1...]) else { return .failure(.badRequest) }
        // HTTP/1.1 requires exactly one Host (RFC 9112 section 3.2).
        if version == "HTTP/1.1", headers.values("host").count != 1 { return .failure(.badRequest) }
        if !headers.values("transfer-encoding").isEmpty { return .failure(.notImplemented) }
        let lengths = headers.values("content-length")
        var bodyLength = 0
        if let l = lengths.first {
            guard lengths.allSatisfy({ $0 == l }), !l.isEmpty, l.utf8.count <= 18,
                  l.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let n = Int(l) else {
                return .failure(.badRequest)
            }
            bodyLength = n
        }
        let request = HTTPRequest(method: String(decoding: parts[0], as: UTF8.self),
                                  target: String(decoding: target, as: UTF8.self),
                                  version: version, headers: headers, body: [])
        if bodyLength > limits.maxBodyBytes { return .refusedBody(request, bodyLength) }
        return .success((request, bodyLength))
    }
}
