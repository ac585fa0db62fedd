// The request and response shapes of the streaming HTTP client.

/// One header line; names compare case-insensitively where looked up.
public struct HTTPHeader: Sendable, Equatable {
    public var name: String
    public var value: String
    public init(_ name: String, _ value: String) { self.name = name; self.value = value }
}

/// Limits of one request. Every one is configurable so tests run in milliseconds.
public struct HTTPTimeouts: Sendable, Equatable {
    /// TCP (and TLS) connect. Default 5 s: engines sit on loopback or the LAN, and a dead host
    /// should send the caller to its fallback quickly.
    public var connect: Duration
    /// From sending the request to the first body byte: prompt processing happens in here, so it
    /// is long. Default 120 s.
    public var firstByte: Duration
    /// Longest silence between body bytes once the body has started. Default 30 s (the same as
    /// the watchdog ladder's mid-stream silence).
    public var idle: Duration

    public init(connect: Duration = .seconds(5), firstByte: Duration = .seconds(120), idle: Duration = .seconds(30)) {
        self.connect = connect; self.firstByte = firstByte; self.idle = idle
    }
}

/// A request whose response body is streamed.
public struct HTTPStreamRequest: Sendable {
    /// "GET", "POST", "HEAD", ...
    public var method: String
    /// Absolute http or https URL.
    public var url: String
    public var headers: [HTTPHeader]
    public var body: [UInt8]?
    public var timeouts: HTTPTimeouts

    public init(method: String = "GET", url: String, headers: [HTTPHeader] = [], body: [UInt8]? = nil,
                timeouts: HTTPTimeouts = HTTPTimeouts()) {
        self.method = method; self.url = url; self.headers = headers; self.body = body; self.timeouts = timeouts
    }
}

/// Status and headers, available before the body; the body arrives as chunks in the order received.
///
/// Read the body to its end or cancel the reading task: cancelling (or dropping the stream)
/// closes the connection at once.
public struct HTTPStreamResponse: Sendable {
    public let status: Int
    public let headers: [HTTPHeader]
    /// Chunks as libcurl hands them over (one per socket read, not per token). Fails with
    /// `InferenceError.interrupted`, `.timeout` or `.cancelled`.
    public let body: AsyncThrowingStream<[UInt8], Error>

    public init(status: Int, headers: [HTTPHeader], body: AsyncThrowingStream<[UInt8], Error>) {
        self.status = status; self.headers = headers; self.body = body
    }

    public var isSuccess: Bool { (200..<300).contains(status) }

    /// The first header of that name (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// The whole body, up to `limit` bytes; a longer body fails with `.malformed` (and is
    /// abandoned, closing the connection).
    public func collect(limit: Int = 4 << 20) async throws -> [UInt8] {
        var out: [UInt8] = []
        for try await chunk in body {
            guard out.count + chunk.count <= limit else {
                throw InferenceError.malformed("response body over \(limit) bytes")
            }
            out += chunk
        }
        return out
    }

    /// Throws `.http(status, short message)` for a non-2xx status, reading at most 64 KiB of the
    /// error body for its message.
    public func requireSuccess() async throws {
        guard !isSuccess else { return }
        let body = (try? await collect(limit: 64 << 10)) ?? []
        throw InferenceError.http(status: status, message: HTTPErrorMessage.short(from: body, status: status))
    }
}

extension String {
    func caseInsensitiveEquals(_ other: String) -> Bool {
        utf8.count == other.utf8.count && lowercased() == other.lowercased()
    }
}
