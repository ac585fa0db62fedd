import Basics
import CCurl
import Foundation
import Synchronization

/// One thread driving one curl multi handle for every streamed request of the process.
///
/// Why a multi handle on one thread rather than an easy handle per thread: a single thread
/// whatever the number of concurrent streams, connections kept alive and reused between
/// requests to the same engine, and `curl_multi_wakeup` to act on a cancel at once, even while
/// the engine is silent (an easy handle only notices a cancel at its next progress callback,
/// about once a second when idle). Callbacks only copy bytes and yield them: the thread never
/// waits on a consumer.
final class CurlLoop: @unchecked Sendable {  // multi: only curl_multi_wakeup is called off the loop thread (thread-safe)
    static let shared = CurlLoop()

    private struct Pending {
        var adds: [CurlTransfer] = []
        var cancels: [CurlTransfer] = []
        var resumes: [CurlTransfer] = []
    }

    private let multi: UnsafeMutableRawPointer
    private let pending = Mutex(Pending())
    private let core: LoopCore

    private init() {
        curl_global_init(Int(CURL_GLOBAL_ALL))
        guard let m = curl_multi_init() else { fatalError("curl_multi_init failed: out of memory") }
        multi = m
        core = LoopCore(multi: m)
        let thread = Thread { [self] in run() }
        thread.name = "homebase-curl"
        thread.start()
    }

    /// Hands a configured transfer to the loop.
    func start(_ t: CurlTransfer) {
        pending.withLock { $0.adds.append(t) }
        curl_multi_wakeup(multi)
    }

    /// Aborts a transfer from any thread; the loop closes its connection at once.
    func cancel(_ t: CurlTransfer) {
        t.cancelled.store(true, ordering: .relaxed)
        pending.withLock { $0.cancels.append(t) }
        curl_multi_wakeup(multi)
    }

    /// Un-pauses a transfer its sink paused, from any thread.
    func resume(_ t: CurlTransfer) {
        pending.withLock { $0.resumes.append(t) }
        curl_multi_wakeup(multi)
    }

    private func run() {
        while true {
            let work = pending.withLock { p -> Pending in
                defer { p = Pending() }
                return p
            }
            core.step(adding: work.adds, cancelling: work.cancels, resuming: work.resumes)
        }
    }
}

/// The loop thread's own state: the transfers in flight, keyed by easy handle.
private final class LoopCore: @unchecked Sendable {
    let multi: UnsafeMutableRawPointer
    var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    /// Longest sleep when nothing is due: a bound, not a latency (wakeups cut it short).
    let maxWaitMs: Int32 = 1000

    init(multi: UnsafeMutableRawPointer) { self.multi = multi }

    func step(adding adds: [CurlTransfer], cancelling cancels: [CurlTransfer], resuming resumes: [CurlTransfer]) {
        for t in adds {
            if t.cancelled.load(ordering: .relaxed) { t.finish(.cancelled); continue }
            guard curl_multi_add_handle(multi, t.easy) == CURLM_OK else {
                t.finish(.unreachable("libcurl refused the request")); continue
            }
            active[t.easy] = t
        }
        for t in cancels { end(t, .cancelled) }
        for t in resumes where active[t.easy] === t { t.unpause() }

        var running: Int32 = 0
        curl_multi_perform(multi, &running)
        drainCompleted()

        let now = monotonicNanos()
        var nearest = UInt64.max
        var stalled: [CurlTransfer] = []  // stays unallocated while nothing stalls
        for t in active.values where !t.paused {
            if now >= t.deadline { stalled.append(t) } else { nearest = min(nearest, t.deadline) }
        }
        for t in stalled { end(t, t.stallError) }
        let waitMs = nearest == .max ? maxWaitMs : Int32(min(UInt64(maxWaitMs), (nearest - now) / 1_000_000 + 1))
        curl_multi_poll(multi, nil, 0, waitMs, nil)
    }

    private func drainCompleted() {
        var left: Int32 = 0
        while let msg = curl_multi_info_read(multi, &left) {
            guard msg.pointee.msg == CURLMSG_DONE, let easy = msg.pointee.easy_handle,
                  let t = active[easy] else { continue }
            let code = msg.pointee.data.result
            end(t, t.error(for: code))
        }
    }

    /// Removes the handle (mid-transfer this closes the connection) and ends the streams.
    private func end(_ t: CurlTransfer, _ error: InferenceError?) {
        guard active.removeValue(forKey: t.easy) != nil else { return }
        curl_multi_remove_handle(multi, t.easy)
        t.releaseHandle()
        t.finish(error)
    }
}
