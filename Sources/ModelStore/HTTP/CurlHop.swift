import CCurl
import Foundation

/// The state libcurl's callbacks see during one hop. Used by one thread only: the one running
/// `curl_easy_perform`.
final class HopContext {
    var status = 0
    var headers: [String: String] = [:]
    var body = Data()
    let bodyLimit: Int
    let sink: (any BodySink)?
    let cancel: CancelFlag
    var began = false
    /// Why a callback stopped the transfer, when it did.
    var stopReason: StopReason?

    enum StopReason { case bodyTooLarge, sinkRefused, sinkWriteFailed }

    init(bodyLimit: Int, sink: (any BodySink)?, cancel: CancelFlag) {
        self.bodyLimit = bodyLimit
        self.sink = sink
        self.cancel = cancel
    }

    var isRedirect: Bool { [301, 302, 303, 307, 308].contains(status) && headers["location"] != nil }

    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        // Redirect and error bodies are small and never belong in a file.
        guard let sink, (200..<300).contains(status) else {
            if body.count + bytes.count > bodyLimit {
                stopReason = .bodyTooLarge
                return false
            }
            body.append(contentsOf: bytes)
            return true
        }
        if !began {
            began = true
            guard sink.begin(status: status, headers: headers) else {
                stopReason = .sinkRefused
                return false
            }
        }
        guard sink.write(bytes) else {
            stopReason = .sinkWriteFailed
            return false
        }
        return true
    }

    func header(_ line: String) {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("HTTP/") {
            // A new status line (after a 100 Continue, or a new hop): start over.
            let parts = trimmed.split(separator: " ")
            status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            headers = [:]
        } else if let colon = trimmed.firstIndex(of: ":") {
            let name = trimmed[..<colon].lowercased()
            headers[name] = trimmed[trimmed.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
    }
}

// Plain functions (not closures in a main-actor context): libcurl calls them on the transfer thread.
private func writeCallback(_ ptr: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ user: UnsafeMutableRawPointer?) -> Int {
    guard let ptr, let user else { return 0 }
    let context = Unmanaged<HopContext>.fromOpaque(user).takeUnretainedValue()
    let n = size * count
    return context.receive(UnsafeRawBufferPointer(start: ptr, count: n)) ? n : 0
}

private func headerCallback(_ ptr: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ user: UnsafeMutableRawPointer?) -> Int {
    guard let ptr, let user else { return 0 }
    let context = Unmanaged<HopContext>.fromOpaque(user).takeUnretainedValue()
    let n = size * count
    context.header(String(decoding: UnsafeRawBufferPointer(start: ptr, count: n), as: UTF8.self))
    return n
}

private func progressCallback(_ user: UnsafeMutableRawPointer?, _: curl_off_t, _: curl_off_t, _: curl_off_t, _: curl_off_t) -> Int32 {
    guard let user else { return 0 }
    return Unmanaged<HopContext>.fromOpaque(user).takeUnretainedValue().cancel.isCancelled ? 1 : 0
}

/// libcurl's global init is not thread-safe: done once, before any handle exists.
private let curlGlobal: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

/// One request/response exchange, no redirect following. Blocking.
enum CurlHop {
    static func perform(url: String, headers: [String], acceptCompressed: Bool, options: HTTPOptions,
                        context: HopContext) -> CURLcode
    {
        _ = curlGlobal
        guard let handle = curl_easy_init() else { return CURLE_FAILED_INIT }
        defer { curl_easy_cleanup(handle) }
        var list: UnsafeMutablePointer<curl_slist>?
        for h in headers { list = curl_slist_append(list, h) }
        defer { curl_slist_free_all(list) }

        let user = Unmanaged.passUnretained(context).toOpaque()
        hb_curl_setopt_str(handle, CURLOPT_URL, url)
        hb_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, list)
        hb_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0)
        hb_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)  // no SIGALRM timeouts: we run on many threads
        hb_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds(options.connectTimeout))
        hb_curl_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, options.lowSpeedLimit)
        hb_curl_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, max(1, milliseconds(options.stallTime) / 1000))
        hb_curl_setopt_str(handle, CURLOPT_USERAGENT, options.userAgent)
        if acceptCompressed { hb_curl_setopt_str(handle, CURLOPT_ACCEPT_ENCODING, "") }
        hb_curl_setopt_data_cb(handle, CURLOPT_WRITEFUNCTION, writeCallback)
        hb_curl_setopt_ptr(handle, CURLOPT_WRITEDATA, user)
        hb_curl_setopt_data_cb(handle, CURLOPT_HEADERFUNCTION, headerCallback)
        hb_curl_setopt_ptr(handle, CURLOPT_HEADERDATA, user)
        hb_curl_setopt_xfer_cb(handle, CURLOPT_XFERINFOFUNCTION, progressCallback)
        hb_curl_setopt_ptr(handle, CURLOPT_XFERINFODATA, user)
        hb_curl_setopt_long(handle, CURLOPT_NOPROGRESS, 0)
        return curl_easy_perform(handle)
    }

    static func milliseconds(_ d: Duration) -> Int {
        Int(d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000)
    }
}
