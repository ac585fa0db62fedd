import Glibc
import Transport

/// Runs a relay process: one event loop on the calling thread until SIGTERM/SIGINT.
public enum RelayProcess {
    /// Returns the exit status: 0 after a clean shutdown, 1 if the relay could not start.
    public static func serve(_ config: RelayConfig) -> Int32 {
        let log = Logger(level: config.logLevel)
        let loop: EventLoop
        do { loop = try EventLoop() } catch {
            log.error("event loop: \(error)")
            return 1
        }
        unblockSignals()
        let files = FileLimit.raise(for: config.maxConnections)
        if files.enough { log.info(files.words) } else { log.warn(files.words) }
        let status = StatusBox()
        loop.execute {
            do throws(RelayError) {
                let relay = try Relay(configuration: config, loop: loop, logger: log)
                status.relay = relay
                try relay.handleSignals { loop.shutdown() }
            } catch {
                log.error(error.description)
                status.code = error.exitCode
                loop.shutdown()
            }
        }
        loop.run()
        return status.code
    }
}

/// A parent may have spawned us with signals blocked (a blocked mask is inherited across exec):
/// SIGTERM would then never arrive. The loop's self-pipe handler needs them deliverable.
private func unblockSignals() {
    var set = sigset_t()
    sigemptyset(&set)
    for s in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&set, s) }
    pthread_sigmask(SIG_UNBLOCK, &set, nil)
}

/// Written and read on the loop thread only (and read after `run` returns).
private final class StatusBox: @unchecked Sendable {
    var code: Int32 = 0
    var relay: Relay?
}
