import CLinux
import Glibc
import Synchronization

/// Write end of the self-pipe, read by the C signal handler (which can capture nothing).
private let signalPipeWriteFD = Atomic<Int32>(-1)

/// Async-signal-safe: one write(2) of the signal number, errno preserved.
private func relaySignal(_ sig: Int32) {
    let fd = signalPipeWriteFD.load(ordering: .relaxed)
    guard fd >= 0 else { return }
    let saved = errno
    var b = UInt8(truncatingIfNeeded: sig)
    _ = write(fd, &b, 1)
    errno = saved
}

/// Delivers signals as loop callbacks through a self-pipe. Chosen over signalfd because signalfd
/// needs the signal blocked in every thread of the process (the test runner and the Swift runtime
/// start threads we do not control); a handler works whichever thread the kernel picks.
final class SignalRelay: Selectable {
    private unowned let loop: EventLoop
    private let readFD: Int32
    private let writeFD: Int32
    private var handlers: [Int32: [() -> Void]] = [:]
    private var previous: [Int32: __sighandler_t?] = [:]

    init(loop: EventLoop) throws(TransportError) {
        self.loop = loop
        var fds: [Int32] = [0, 0]
        try sys("pipe", pipe(&fds))
        readFD = fds[0]; writeFD = fds[1]
        setNonBlockingCloexec(readFD)
        setNonBlockingCloexec(writeFD)
        do { try loop.register(readFD, self, events: Epoll.readable) } catch {
            close(readFD); close(writeFD); throw error
        }
        signalPipeWriteFD.store(writeFD, ordering: .releasing)
    }

    func add(_ sig: Int32, _ body: @escaping () -> Void) {
        if handlers[sig] == nil { previous[sig] = signal(sig, relaySignal) }
        handlers[sig, default: []].append(body)
    }

    func handle(events: UInt32) {
        var buf = [UInt8](repeating: 0, count: 64)
        while true {
            let n = read(readFD, &buf, buf.count)
            guard n > 0 else { return }
            for s in buf[0..<n] { handlers[Int32(s)]?.forEach { $0() } }
        }
    }

    func loopDidStop() {}

    /// Restores the previous dispositions and closes the pipe.
    func stop() {
        for (sig, h) in previous { signal(sig, h) }
        previous = [:]
        _ = signalPipeWriteFD.compareExchange(expected: writeFD, desired: -1, ordering: .acquiringAndReleasing)
        loop.deregister(readFD)
        close(readFD); close(writeFD)
    }
}
