import Basics
import CLinux
import Glibc
import Synchronization

/// One thread running epoll; every connection, listener and timer of the loop lives on it.
///
/// Level-triggered: a connection reads one buffer per readiness and returns to the loop, so a
/// busy peer cannot starve the others, and the listener can stop after its burst limit without
/// losing the wake-up (with edge-triggering both would need a drain to EAGAIN). EPOLLOUT is
/// watched only while a send queue is non-empty, so level-triggering costs no spurious wake-ups.
///
/// Loop-confined objects (`Connection`, `WebSocket`, listeners) must be touched only on the
/// loop thread: from elsewhere, hop with `execute`. Only `execute`, `shutdown` and `join` are
/// thread-safe.
public final class EventLoop: @unchecked Sendable {
    public struct Configuration: Sendable {
        /// Shared by every connection's reads: per-connection read buffers would cost memory per idle peer.
        public var readBufferSize = 64 * 1024
        /// Readiness events taken per epoll_wait.
        public var maxEventsPerWait = 256
        public init() {}
    }

    let epfd: Int32
    private let wakeFD: Int32
    private let pending = Mutex<[@Sendable () -> Void]>([])
    private let stopRequested = Atomic<Bool>(false)
    private let ownerThread = Atomic<UInt>(0)
    private let configuration: Configuration
    private var thread: pthread_t?

    // Loop-thread state.
    private var registered: [Registration?] = []
    private var generation: UInt32 = 0
    /// Unchecked exclusivity: TimerHeap's methods call no timer's action (popDue returns them),
    /// so no access overlaps another; the check ran three times per loop turn.
    @exclusivity(unchecked) var timers = TimerHeap()
    let readBuffer: UnsafeMutableRawBufferPointer
    /// Where a TLS send gathers its parts for one SSL_write (the read buffer may hold the very
    /// bytes being forwarded).
    let writeScratch: UnsafeMutableRawBufferPointer
    /// TLS: where SSL_read puts plaintext (the read buffer still holds the ciphertext being read).
    let plaintextBuffer: UnsafeMutableRawBufferPointer
    /// TLS: where OpenSSL writes ciphertext, drained to the socket after every call (TLSSession).
    /// Untouched pages cost nothing: a plain-only loop never maps these two.
    let tlsOutput: UnsafeMutableRawBufferPointer
    /// TLS: the own record layer's cipher contexts, shared by the loop's connections.
    let aead = AEADContexts()
    var signals: SignalRelay?
    private var finished = false

    private struct Registration { let object: Selectable; let generation: UInt32 }

    public init(configuration: Configuration = Configuration()) throws(TransportError) {
        self.configuration = configuration
        epfd = try sys("epoll_create1", epoll_create1(Int32(EPOLL_CLOEXEC)))
        let w = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard w >= 0 else { let e = hb_errno(); close(epfd); throw .system(call: "eventfd", errno: e) }
        wakeFD = w
        readBuffer = .allocate(byteCount: configuration.readBufferSize, alignment: 16)
        writeScratch = .allocate(byteCount: configuration.readBufferSize, alignment: 16)
        plaintextBuffer = .allocate(byteCount: configuration.readBufferSize, alignment: 16)
        tlsOutput = .allocate(byteCount: configuration.readBufferSize, alignment: 16)
        var ev = epoll_event(events: Epoll.readable, data: epoll_data_t(u64: UInt64(UInt32(bitPattern: w))))
        epoll_ctl(epfd, EPOLL_CTL_ADD, w, &ev)
    }

    deinit {
        if !finished { close(epfd) }
        // The wake fd lives exactly as long as the loop object: `execute`/`shutdown` may be called
        // from any thread holding a reference, even after the loop stopped, and must never write
        // to a closed descriptor whose number another file has since taken.
        close(wakeFD)
        readBuffer.deallocate()
        writeScratch.deallocate()
        plaintextBuffer.deallocate()
        tlsOutput.deallocate()
    }

    /// Whether the caller is on this loop's thread.
    public var inLoop: Bool { ownerThread.load(ordering: .acquiring) == pthread_self() }

    /// Runs `work` on the loop thread soon (thread-safe; wakes the loop through its eventfd).
    public func execute(_ work: @escaping @Sendable () -> Void) {
        let wasEmpty = pending.withLock { q in
            defer { q.append(work) }
            return q.isEmpty
        }
        if wasEmpty { eventfd_write(wakeFD, 1) }
    }

    /// Asks the loop to stop (thread-safe). Every connection is closed and told so; `run` returns.
    public func shutdown() {
        stopRequested.store(true, ordering: .releasing)
        eventfd_write(wakeFD, 1)
    }

    /// Starts the loop on a new thread.
    public func start() throws(TransportError) {
        let box = Unmanaged.passRetained(self)
        var t = pthread_t()
        let r = pthread_create(&t, nil, { arg in
            let loop = Unmanaged<EventLoop>.fromOpaque(arg!).takeRetainedValue()
            loop.run()
            return nil
        }, box.toOpaque())
        guard r == 0 else { box.release(); throw .system(call: "pthread_create", errno: r) }
        thread = t
    }

    /// Waits for a loop started with `start()` to finish after `shutdown()`.
    public func join() {
        if let t = thread { pthread_join(t, nil); thread = nil }
    }

    /// Runs the loop on the calling thread until `shutdown()`.
    public func run() {
        ownerThread.store(pthread_self(), ordering: .releasing)
        let max = configuration.maxEventsPerWait
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: max)
        defer { events.deallocate() }
        while !stopRequested.load(ordering: .acquiring) {
            let n = epoll_wait(epfd, events, Int32(max), waitTimeout())
            if n < 0 && hb_errno() != EINTR { break }
            for i in 0..<Int(Swift.max(n, 0)) { dispatch(events[i]) }
            runPending()
            runTimers()
        }
        teardown()
    }

    // MARK: loop-thread API

    /// Calls `body` once after `delay` (loop thread only).
    @discardableResult
    public func schedule(after delay: Duration, _ body: @escaping () -> Void) -> TimerHandle {
        timers.add(deadline: monotonicNanos() &+ delay.nanoseconds, body)
    }

    /// Forgets a timer (loop thread only); cancelling a fired or cancelled timer does nothing.
    public func cancel(_ timer: TimerHandle) { timers.cancel(timer) }

    /// Calls `body` on the loop each time the process receives `signal` (SIGHUP, SIGTERM, ...).
    /// Loop thread only; one loop per process should handle signals.
    public func onSignal(_ signal: Int32, _ body: @escaping () -> Void) throws(TransportError) {
        if signals == nil {
            let relay = try SignalRelay(loop: self)
            signals = relay
        }
        signals!.add(signal, body)
    }

    func register(_ fd: Int32, _ object: Selectable, events: UInt32) throws(TransportError) {
        generation &+= 1
        if registered.count <= Int(fd) { registered += Array(repeating: nil, count: Int(fd) + 1 - registered.count) }
        registered[Int(fd)] = Registration(object: object, generation: generation)
        var ev = epoll_event(events: events, data: epoll_data_t(u64: key(fd, generation)))
        do { try sys("epoll_ctl", epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev)) } catch {
            registered[Int(fd)] = nil
            throw error
        }
    }

    func modify(_ fd: Int32, events: UInt32) {
        guard Int(fd) < registered.count, let r = registered[Int(fd)] else { return }
        var ev = epoll_event(events: events, data: epoll_data_t(u64: key(fd, r.generation)))
        epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &ev)
    }

    /// Stops watching `fd`; call before closing it.
    func deregister(_ fd: Int32) {
        guard fd >= 0 else { return }
        epoll_ctl(epfd, EPOLL_CTL_DEL, fd, nil)
        if Int(fd) < registered.count { registered[Int(fd)] = nil }
    }

    /// fd in the low half, registration generation in the high half: an event queued for a
    /// descriptor closed earlier in the same batch never reaches the fd's next owner.
    private func key(_ fd: Int32, _ gen: UInt32) -> UInt64 { UInt64(gen) << 32 | UInt64(UInt32(bitPattern: fd)) }

    private func dispatch(_ ev: epoll_event) {
        let fd = Int32(bitPattern: UInt32(truncatingIfNeeded: ev.data.u64))
        if fd == wakeFD { var v: eventfd_t = 0; eventfd_read(wakeFD, &v); return }
        let gen = UInt32(truncatingIfNeeded: ev.data.u64 >> 32)
        guard Int(fd) < registered.count, let r = registered[Int(fd)], r.generation == gen else { return }
        r.object.handle(events: ev.events)
    }

    private func runPending() {
        let work = pending.withLock { q in
            defer { q = [] }
            return q
        }
        for w in work { w() }
    }

    private func runTimers() {
        for action in timers.popDue(now: monotonicNanos()) { action() }
    }

    private func waitTimeout() -> Int32 {
        if pending.withLock({ !$0.isEmpty }) { return 0 }
        guard let d = timers.nextDeadline() else { return -1 }
        let now = monotonicNanos()
        if d <= now { return 0 }
        // Round up: waking a little late is fine, waking early spins.
        return Int32(clamping: (d - now + 999_999) / 1_000_000)
    }

    private func teardown() {
        for r in registered { r?.object.loopDidStop() }
        registered = []
        signals?.stop()
        signals = nil
        runPending() // work queued during shutdown still runs, so waiters are released
        finished = true
        close(epfd)  // only the loop thread uses it; the wake fd stays open until deinit
    }
}
