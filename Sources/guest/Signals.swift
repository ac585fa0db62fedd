import Dispatch
import Glibc
import GuestAgent
import Synchronization

/// SIGINT, SIGTERM and SIGHUP stop the engine before the guest exits, so no llama-server is
/// left behind. A parent may have spawned the guest with them blocked (the mask is inherited
/// across exec): unblock them first.
enum ShutdownSignals {
    static let handled = [SIGINT, SIGTERM, SIGHUP]

    /// Run on SIGINT before the engine stops (`guest host pull`: Ctrl-C cancels the pull on the Homebase).
    static let onInterrupt = Mutex<(@Sendable () async -> Void)?>(nil)

    static func install(_ context: GuestContext) -> [any DispatchSourceSignal] {
        var set = sigset_t()
        sigemptyset(&set)
        for s in handled { sigaddset(&set, s) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        return handled.map { sig in
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                Task {
                    if sig == SIGINT, let hook = onInterrupt.withLock({ $0 }) { await hook() }
                    await context.shutdown()
                    exit(128 + sig)
                }
            }
            source.resume()
            return source
        }
    }
}
