import CCurl
import Dispatch
import Foundation

/// The smallest libcurl client this module needs: GET with hand-followed redirects, a buffered
/// body or a streamed one, cancellation, and errors mapped to `ModelStoreError`.
///
/// Kept apart from Inference's `HTTPStreamClient` on purpose: that client's one loop thread never
/// waits for a consumer (chunks queue in an unbounded stream, fine for chat, unbounded memory for
/// a multi-GB file written slower than it arrives), and it reports every failure before the head
/// as `unreachable`, where a download must tell offline (fail at once) from a cut (resume). Here
/// the body is written on the transfer thread itself, so TCP flow control paces the download.
struct HTTPClient: Sendable {
    var options: HTTPOptions

    init(options: HTTPOptions = HTTPOptions()) {
        self.options = options
    }

    /// Runs `request` on a plain thread (libcurl blocks), cancelled with the calling task.
    func get(_ request: HTTPRequest, sink: (any BodySink & Sendable)? = nil) async throws -> HTTPResponse {
        let flag = CancelFlag()
        let options = self.options
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (k: CheckedContinuation<HTTPResponse, any Error>) in
                DispatchQueue.global().async {
                    k.resume(with: Result { try HTTPClient.blockingGet(request, sink: sink, options: options, cancel: flag) })
                }
            }
        } onCancel: {
            flag.cancel()
        }
    }

    /// Follows up to `maxRedirects` hops. Each hop gets the token only if its host is the token's.
    static func blockingGet(_ request: HTTPRequest, sink: (any BodySink)?, options: HTTPOptions,
                            cancel: CancelFlag) throws -> HTTPResponse
    {
        var url = request.url
        for _ in 0...options.maxRedirects {
            if cancel.isCancelled { throw ModelStoreError.cancelled }
            guard let parsed = URL(string: url), parsed.host != nil else {
                throw ModelStoreError.transfer(url: url, detail: "not a valid URL")
            }
            var lines = request.headers.map { "\($0.name): \($0.value)" }
            if let token = request.token, let host = request.tokenHost, parsed.hostAndPort == host {
                lines.append("Authorization: Bearer \(token)")
            }
            let context = HopContext(bodyLimit: options.maxBodyBytes, sink: sink, cancel: cancel)
            let code = CurlHop.perform(url: url, headers: lines, acceptCompressed: request.acceptCompressed,
                                       options: options, context: context)
            try check(code, context: context, url: parsed)
            if context.isRedirect, let location = context.headers["location"],
               let next = URL(string: location, relativeTo: parsed)?.absoluteURL
            {
                url = next.absoluteString
                continue
            }
            return HTTPResponse(status: context.status, headers: context.headers, body: context.body, url: url)
        }
        throw ModelStoreError.transfer(url: display(URL(string: request.url)), detail: "too many redirects")
    }

    /// Maps a libcurl result to the module's error. The URL shown has no query (it may hold a cursor
    /// or a signature) and never a header.
    static func check(_ code: CURLcode, context: HopContext, url: URL) throws {
        if code == CURLE_OK { return }
        let shown = display(url)
        if context.cancel.isCancelled { throw ModelStoreError.cancelled }
        switch context.stopReason {
        case .bodyTooLarge: throw ModelStoreError.badResponse(url: shown, detail: "body over the size limit")
        case .sinkRefused: throw ModelStoreError.badResponse(url: shown, detail: "unexpected response for a download")
        case .sinkWriteFailed: throw ModelStoreError.io(path: shown, detail: "could not write the downloaded data")
        case nil: break
        }
        let detail = String(cString: curl_easy_strerror(code))
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT:
            throw ModelStoreError.offline(host: url.hostAndPort, detail: detail)
        case CURLE_OPERATION_TIMEDOUT where context.status == 0:
            throw ModelStoreError.offline(host: url.hostAndPort, detail: detail)
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_OPERATION_TIMEDOUT:
            throw ModelStoreError.interrupted(url: shown, detail: detail)
        default:
            throw ModelStoreError.transfer(url: shown, detail: detail)
        }
    }

    static func display(_ url: URL?) -> String {
        guard let url else { return "(invalid URL)" }
        return "\(url.scheme ?? "http")://\(url.hostAndPort)\(url.path)"
    }
}
