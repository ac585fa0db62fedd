import CCurl

/// libcurl result codes as `InferenceError`s. Messages are libcurl's generic texts: never a URL's
/// credentials, a header or a body.
enum CurlErrors {
    static func map(_ code: CURLcode, afterHead: Bool) -> InferenceError {
        let text = String(cString: curl_easy_strerror(code))
        if afterHead {
            // The head arrived, so the engine was reached: whatever broke, the answer is cut short.
            return .interrupted
        }
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            // Only the connect timeout is set on the handle; stalls are the loop's own deadlines.
            return .unreachable("connect timed out")
        case CURLE_GOT_NOTHING:
            return .unreachable("the server closed the connection without answering")
        default:
            // Refused, DNS, TLS handshake or certificate, bad URL, connection reset before the head.
            return .unreachable(text)
        }
    }
}
