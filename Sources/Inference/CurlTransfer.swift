import Basics
import CCurl
import Foundation
import Glibc
import Synchronization

/// One request in flight on the `CurlLoop`: its easy handle, the head being collected and the
/// body stream. Confined to the loop thread except `cancelled`, which any thread may set.
final class CurlTransfer: @unchecked Sendable {
    let easy: UnsafeMutableRawPointer
    let timeouts: HTTPTimeouts
    let cancelled = Atomic<Bool>(false)
    let body: AsyncThrowingStream<[UInt8], Error>
    private let bodyOut: AsyncThrowingStream<[UInt8], Error>.Continuation
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// Resumed once, with the head or a failure (set before the loop first sees the transfer).
    var headWaiter: CheckedContinuation<HTTPStreamResponse, Error>?
    private var status = 0
    private var headers: [HTTPHeader] = []
    private var headDelivered = false
    private var bodyStarted = false
    /// Takes a 2xx body instead of `body` (which then only ends); dropped at the end.
    private var sink: HTTPBodySink?
    private var sinkTakesBody = false
    /// Paused by the sink: the stall deadline does not run.
    private(set) var paused = false
    /// Monotonic nanoseconds after which the loop aborts the transfer as stalled.
    private(set) var deadline: UInt64
    private(set) var finished = false

    init(easy: UnsafeMutableRawPointer, headerList: UnsafeMutablePointer<curl_slist>?, timeouts: HTTPTimeouts,
         sink: HTTPBodySink? = nil) {
        self.easy = easy
        self.sink = sink
        self.headerList = headerList
        self.timeouts = timeouts
        (body, bodyOut) = AsyncThrowingStream.makeStream(of: [UInt8].self)
        deadline = monotonicNanos() &+ timeouts.firstByte.nanoseconds
    }

    private var handleReleased = false

    deinit { releaseHandle() }

    /// Frees the easy handle: on the loop thread right after `curl_multi_remove_handle`, or at
    /// deinit for a transfer that never reached the loop.
    func releaseHandle() {
        guard !handleReleased else { return }
        handleReleased = true
        curl_easy_cleanup(easy)
        curl_slist_free_all(headerList)
        headerList = nil
    }

    /// Called when the consumer drops the body: cancel through `loop`.
    func onBodyTermination(_ handler: @escaping @Sendable () -> Void) {
        bodyOut.onTermination = { reason in
            if case .cancelled = reason { handler() }
        }
    }

    // MARK: libcurl callbacks (loop thread)

    func headerLine(_ raw: UnsafeRawBufferPointer) {
        guard !headDelivered else { return }  // trailers after the body: ignored
        // Trim CR LF as bytes: as Characters "\r\n" is one grapheme, neither "\r" nor "\n".
        var end = raw.count
        while end > 0, raw[end - 1] == 0x0D || raw[end - 1] == 0x0A { end -= 1 }
        let line = Substring(decoding: UnsafeRawBufferPointer(rebasing: raw[0..<end]), as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            // A new status line starts a new head (after a 1xx interim response).
            let parts = line.split(separator: " ", maxSplits: 2)
            status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            headers.removeAll()
        } else if line.isEmpty {
            if status >= 200 { deliverHead() }
        } else if let colon = line.firstIndex(of: ":") {
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers.append(HTTPHeader(name, value))
        }
    }

    /// What the write callback answers for these bytes.
    func bodyBytes(_ raw: UnsafeRawBufferPointer) -> HTTPBodySinkVerdict {
        if !headDelivered { deliverHead() }
        bodyStarted = true
        guard sinkTakesBody, let sink else {
            deadline = monotonicNanos() &+ timeouts.idle.nanoseconds
            bodyOut.yield(Array(raw))
            return .taken
        }
        let verdict = sink.receive(raw)
        paused = verdict == .pause
        if !paused { deadline = monotonicNanos() &+ timeouts.idle.nanoseconds }
        return verdict
    }

    /// Goes on after a sink's pause (loop thread): libcurl hands the held bytes over again.
    func unpause() {
        guard paused, !finished else { return }
        paused = false
        deadline = monotonicNanos() &+ timeouts.idle.nanoseconds
        curl_easy_pause(easy, CURLPAUSE_CONT)
    }

    private func deliverHead() {
        guard !headDelivered else { return }
        headDelivered = true
        sinkTakesBody = sink != nil && (200..<300).contains(status)
        headWaiter?.resume(returning: HTTPStreamResponse(status: status, headers: headers, body: body))
        headWaiter = nil
    }

    // MARK: completion (loop thread)

    /// Ends the transfer: `error == nil` is a clean end of the body.
    func finish(_ error: InferenceError?) {
        guard !finished else { return }
        finished = true
        defer { sink = nil }
        if let error {
            if let waiter = headWaiter {
                headWaiter = nil
                waiter.resume(throwing: error)
            }
            bodyOut.finish(throwing: error)
        } else {
            deliverHead()
            bodyOut.finish()
        }
    }

    /// The error for a libcurl result, given what has been received so far.
    func error(for code: CURLcode) -> InferenceError? {
        if code == CURLE_OK { return nil }
        if cancelled.load(ordering: .relaxed) { return .cancelled }
        return CurlErrors.map(code, afterHead: headDelivered)
    }

    var stallError: InferenceError {
        bodyStarted
            ? .timeout("the engine sent nothing for \(timeouts.idle.spoken)")
            : .timeout("no answer from the engine within \(timeouts.firstByte.spoken)")
    }
}

extension Duration {
    /// Whole nanoseconds, saturating at UInt64.max.
    var nanoseconds: UInt64 {
        let (s, a) = components
        guard s >= 0 else { return 0 }
        let (mul, o1) = UInt64(s).multipliedReportingOverflow(by: 1_000_000_000)
        let (sum, o2) = mul.addingReportingOverflow(UInt64(a / 1_000_000_000))
        return o1 || o2 ? .max : sum
    }

    /// "20 s", "250 ms": how a limit is named in an error a user reads.
    var spoken: String {
        let ms = nanoseconds / 1_000_000
        return ms % 1000 == 0 ? "\(ms / 1000) s" : "\(ms) ms"
    }
}
