import Foundation
import Synchronization

/// One request as this module sends it (see `HTTPClient` for why it is not Inference's).
struct HTTPRequest: Sendable {
    var url: String
    /// Extra headers, sent on every hop of a redirect chain.
    var headers: [(name: String, value: String)] = []
    /// A bearer token, attached only on hops whose host and port equal `tokenHost`'s:
    /// a redirect to a CDN never carries it.
    var token: String?
    /// `host[:port]` the token belongs to (the hub's own).
    var tokenHost: String?
    /// Ask for a compressed body (API JSON only: a compressed download cannot resume).
    var acceptCompressed = false
}

/// The final response after redirects. Header names are lowercased; the last value wins.
struct HTTPResponse: Sendable {
    var status: Int
    var headers: [String: String]
    var body: Data
    /// The URL that answered (after redirects).
    var url: String
}

/// Transfer limits. Every one is here so tests can make them small.
struct HTTPOptions: Sendable {
    /// A connect that takes longer counts as offline.
    var connectTimeout: Duration = .seconds(10)
    /// A transfer below `lowSpeedLimit` bytes/s for this long is a stall (libcurl counts whole seconds).
    var stallTime: Duration = .seconds(30)
    var lowSpeedLimit = 1
    /// Redirect hops followed by hand (so each hop decides about the token).
    var maxRedirects = 8
    /// A buffered (API) body larger than this is refused: the hub's pages are far smaller.
    var maxBodyBytes = 64 << 20
    var userAgent = "homebase-modelstore/1"
}

/// Set from any thread to abort a transfer at libcurl's next progress callback.
final class CancelFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    init() {}
    func cancel() { flag.store(true, ordering: .relaxed) }
    var isCancelled: Bool { flag.load(ordering: .relaxed) }
}

/// Where a download's body goes. Called on the transfer thread only.
protocol BodySink: AnyObject {
    /// Called once per hop before its first body byte, with that hop's status and headers.
    /// Return false to refuse the body (the transfer stops with an error).
    func begin(status: Int, headers: [String: String]) -> Bool
    /// Writes a chunk; false on failure (the transfer stops).
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool
}

extension URL {
    /// `host` or `host:port`, as `HTTPRequest.tokenHost` compares it.
    var hostAndPort: String {
        guard let host else { return "" }
        return port.map { "\(host):\($0)" } ?? host
    }
}
