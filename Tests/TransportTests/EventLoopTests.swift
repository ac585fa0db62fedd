import Dispatch
import Foundation
import Synchronization
import Testing
@testable import Transport

@Test func timerHeapFiresInDeadlineOrderAndSkipsCancelled() {
    var heap = TimerHeap()
    let log = Mutex<[Int]>([])
    var handles: [TimerHandle] = []
    for (i, d) in [50, 10, 40, 20, 30].enumerated() {
        handles.append(heap.add(deadline: UInt64(d)) { log.withLock { $0.append(i) } })
    }
    heap.cancel(handles[3]) // deadline 20
    #expect(heap.nextDeadline() == 10)
    for a in heap.popDue(now: 35) { a() }
    #expect(log.withLock { $0 } == [1, 4])
    #expect(heap.count == 2)
    // Mass cancellation sweeps the heap instead of letting dead entries pile up.
    for i in 0..<1000 { heap.cancel(heap.add(deadline: UInt64(100 + i)) {}) }
    #expect(heap.count == 2)
    for a in heap.popDue(now: .max) { a() }
    #expect(log.withLock { $0 } == [1, 4, 2, 0])
    #expect(heap.nextDeadline() == nil)
}

@Test func executeFromManyThreadsRunsEverythingOnTheLoop() throws {
    let h = try LoopHarness()
    defer { h.stop() }
    let ran = Inbox<Bool>()
    DispatchQueue.concurrentPerform(iterations: 200) { _ in
        h.loop.execute { ran.put(h.loop.inLoop) }
    }
    for _ in 0..<200 { #expect(try ran.take()) }
    #expect(!h.loop.inLoop)
}

@Test func timersFireInOrderAndCancelledOnesNever() throws {
    let h = try LoopHarness()
    defer { h.stop() }
    let fired = Inbox<Int>()
    try h.sync {
        let cancelled = h.loop.schedule(after: .milliseconds(5)) { fired.put(-1) }
        h.loop.schedule(after: .milliseconds(20)) { fired.put(2) }
        h.loop.schedule(after: .milliseconds(1)) { fired.put(1) }
        h.loop.cancel(cancelled)
    }
    #expect(try fired.take() == 1)
    #expect(try fired.take() == 2)
}

@Test func signalsArriveAsLoopCallbacks() throws {
    let h = try LoopHarness()
    defer { h.stop() }
    let got = Inbox<Bool>()
    try h.sync { try h.loop.onSignal(SIGUSR2) { got.put(h.loop.inLoop) } }
    kill(getpid(), SIGUSR2) // any thread may take it; the callback still runs on the loop
    #expect(try got.take())
}

@Test func shutdownClosesConnectionsAndTellsTheirOwners() throws {
    let h = try LoopHarness()
    let port = try startEchoServer(h)
    let inbox = Inbox<WSEvent>()
    _ = try connectClient(h, .init(host: "127.0.0.1", port: port), inbox)
    h.stop()
    #expect(try inbox.take() == .closed(1006, "closed locally"))
}

/// Regression: a stopped loop closed its wake eventfd, and a later `execute`/`shutdown` from
/// another thread wrote 8 bytes into whatever file had since taken that descriptor number (a
/// model download grew by 8 bytes). The wake fd now lives as long as the loop object.
@Test func aStoppedLoopNeverWritesIntoAReusedDescriptor() throws {
    let loop = try EventLoop()
    try loop.start()
    loop.shutdown()
    loop.join()
    let dir = try TempDir("hb-fd")
    defer { dir.cleanup() }
    // Take the lowest free descriptors, as a file opened by anyone else would.
    let fds = (0..<4).map { open(dir.path("f\($0)"), O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
    defer { fds.forEach { close($0) } }
    loop.execute {}
    loop.shutdown()
    for (i, fd) in fds.enumerated() {
        var st = stat()
        #expect(fstat(fd, &st) == 0)
        #expect(st.st_size == 0, "file f\(i) was written through a stale loop descriptor")
    }
}
