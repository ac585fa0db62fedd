import CLinux
import Foundation
import Glibc
import Synchronization

/// The one thread that forks leashed children (`hb_spawn_leashed`). The kernel's parent-death
/// signal fires when the thread that forked ends, not the process, and the concurrency pool's
/// threads come and go (an idle one exits within seconds): a llama-server forked there would be
/// killed under a running guest. This thread never ends, so the signal comes only when the guest
/// itself is gone, however it died (SIGKILL, a crash): no engine outlives its guest.
final class LeashThread: Sendable {
    static let shared = LeashThread()

    private struct Job: Sendable {
        let body: @Sendable () -> Void
    }
    private let jobs = Mutex<[Job]>([])
    private let ready = DispatchSemaphore(value: 0)

    private init() {
        let thread = Thread { [self] in loop() }
        thread.name = "homebase-leash"
        thread.start()
    }

    private func loop() -> Never {
        while true {
            ready.wait()
            for job in jobs.withLock({ j in defer { j.removeAll() }; return j }) { job.body() }
        }
    }

    /// Runs `body` on the leash thread and returns its result (the caller blocks for the fork).
    func run<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        let result = Mutex<T?>(nil), done = DispatchSemaphore(value: 0)
        jobs.withLock { $0.append(Job { let value = body(); result.withLock { $0 = value }; done.signal() }) }
        ready.signal()
        done.wait()
        return result.withLock { $0! }
    }
}
