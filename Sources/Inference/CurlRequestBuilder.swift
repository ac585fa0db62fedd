import CCurl

/// Turns an `HTTPStreamRequest` into a configured easy handle wrapped in a `CurlTransfer`.
enum CurlRequestBuilder {
    static func transfer(for request: HTTPStreamRequest, sink: HTTPBodySink? = nil) throws -> CurlTransfer {
        guard request.url.hasPrefix("http://") || request.url.hasPrefix("https://") else {
            throw InferenceError.unreachable("not an http(s) URL")
        }
        guard let easy = curl_easy_init() else { throw InferenceError.unreachable("curl_easy_init failed") }
        var list: UnsafeMutablePointer<curl_slist>?
        for h in request.headers { list = curl_slist_append(list, "\(h.name): \(h.value)") }
        // No `Expect: 100-continue` round trip before a POST body.
        list = curl_slist_append(list, "Expect:")
        let t = CurlTransfer(easy: easy, headerList: list, timeouts: request.timeouts, sink: sink)
        let ctx = Unmanaged.passUnretained(t).toOpaque()

        var ok = true
        func check(_ c: CURLcode) { if c != CURLE_OK { ok = false } }
        check(hb_curl_setopt_str(easy, CURLOPT_URL, request.url))
        check(hb_curl_setopt_str(easy, CURLOPT_PROTOCOLS_STR, "http,https"))
        check(hb_curl_setopt_long(easy, CURLOPT_NOSIGNAL, 1))  // threads: no SIGALRM for DNS timeouts
        check(hb_curl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, request.timeouts.connect.milliseconds))
        check(hb_curl_setopt_long(easy, CURLOPT_TCP_KEEPALIVE, 1))
        check(hb_curl_setopt_slist(easy, CURLOPT_HTTPHEADER, list))
        check(hb_curl_setopt_data_cb(easy, CURLOPT_WRITEFUNCTION, curlWriteCallback))
        check(hb_curl_setopt_ptr(easy, CURLOPT_WRITEDATA, ctx))
        check(hb_curl_setopt_data_cb(easy, CURLOPT_HEADERFUNCTION, curlHeaderCallback))
        check(hb_curl_setopt_ptr(easy, CURLOPT_HEADERDATA, ctx))
        check(hb_curl_setopt_xfer_cb(easy, CURLOPT_XFERINFOFUNCTION, curlProgressCallback))
        check(hb_curl_setopt_ptr(easy, CURLOPT_XFERINFODATA, ctx))
        check(hb_curl_setopt_long(easy, CURLOPT_NOPROGRESS, 0))
        switch request.method {
        case "GET": break
        case "HEAD": check(hb_curl_setopt_long(easy, CURLOPT_NOBODY, 1))
        case "POST": break
        default: check(hb_curl_setopt_str(easy, CURLOPT_CUSTOMREQUEST, request.method))
        }
        if let body = request.body {
            check(hb_curl_setopt_long(easy, CURLOPT_POSTFIELDSIZE, body.count))
            // COPYPOSTFIELDS: libcurl keeps its own copy, so the request may go out of scope.
            body.withUnsafeBytes { check(hb_curl_setopt_ptr(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!))) }
            if request.method != "POST" { check(hb_curl_setopt_str(easy, CURLOPT_CUSTOMREQUEST, request.method)) }
        } else if request.method == "POST" {
            check(hb_curl_setopt_long(easy, CURLOPT_POSTFIELDSIZE, 0))
            check(hb_curl_setopt_str(easy, CURLOPT_COPYPOSTFIELDS, ""))
        }
        guard ok else { throw InferenceError.unreachable("libcurl refused an option (unsupported URL or method?)") }
        return t
    }
}

extension Duration {
    /// Whole milliseconds (at least 1 for a positive duration), for libcurl's `long` options.
    var milliseconds: Int {
        let ms = nanoseconds / 1_000_000
        return ms == 0 && nanoseconds > 0 ? 1 : Int(min(ms, UInt64(Int.max)))
    }
}

// libcurl callbacks: plain C-convention functions at file scope of a library (never in
// main.swift, where they would be main-actor isolated and trap when called on the loop thread).

private let curlWriteCallback: hb_curl_data_cb = { ptr, size, count, ctx in
    let t = Unmanaged<CurlTransfer>.fromOpaque(ctx!).takeUnretainedValue()
    let n = size * count
    if t.cancelled.load(ordering: .relaxed) { return 0 }  // a short count aborts the transfer
    switch t.bodyBytes(UnsafeRawBufferPointer(start: ptr, count: n)) {
    case .taken: return n
    case .pause: return Int(CURL_WRITEFUNC_PAUSE)
    case .abort: return 0
    }
}

private let curlHeaderCallback: hb_curl_data_cb = { ptr, size, count, ctx in
    let t = Unmanaged<CurlTransfer>.fromOpaque(ctx!).takeUnretainedValue()
    let n = size * count
    t.headerLine(UnsafeRawBufferPointer(start: ptr, count: n))
    return n
}

/// Non-zero aborts the transfer: a cancel takes effect even in the middle of `curl_multi_perform`.
private let curlProgressCallback: hb_curl_xfer_cb = { ctx, _, _, _, _ in
    let t = Unmanaged<CurlTransfer>.fromOpaque(ctx!).takeUnretainedValue()
    return t.cancelled.load(ordering: .relaxed) ? 1 : 0
}
