/// The head of an HTTP response (a client reads one: the answer to its upgrade request).
public struct HTTPResponseHead: Equatable, Sendable {
    public var status: Int
    public var headers: HTTPHeaders
}

/// Incremental parser of a response head, for the client side of the WebSocket upgrade.
/// Bodies are not read: anything but 101 ends the connection.
struct HTTPResponseParser {
    enum Action: Equatable {
        case needMore
        case head(HTTPResponseHead)
        case invalid
    }

    private var scanner: HTTPHeadScanner
    private(set) var remainder: [UInt8] = []

    init(maxHeadBytes: Int = 8 * 1024) { scanner = HTTPHeadScanner(maxBytes: maxHeadBytes) }

    mutating func parse(_ bytes: UnsafeRawBufferPointer) -> Action {
        scanner.append(bytes)
        switch scanner.scan() {
        case .needMore: return .needMore
        case .tooLarge, .malformed: return .invalid
        case .head(let lines, let length):
            remainder = scanner.takeBytes(from: length)
            guard let first = lines.first else { return .invalid }
            // "HTTP/1.1 101 Switching Protocols": version, three digits, any reason.
            let parts = first.split(separator: 32, maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count >= 2, parts[0].elementsEqual("HTTP/1.1".utf8), parts[1].count == 3,
                  parts[1].allSatisfy({ $0 >= 48 && $0 <= 57 }),
                  let code = Int(String(decoding: parts[1], as: UTF8.self)),
                  let headers = HTTPFieldLine.headers(lines[1...]) else { return .invalid }
            return .head(HTTPResponseHead(status: code, headers: headers))
        }
    }

    mutating func parse(_ bytes: [UInt8]) -> Action { bytes.withUnsafeBytes { parse($0) } }
}
