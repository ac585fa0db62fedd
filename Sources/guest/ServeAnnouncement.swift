import Dispatch
import Glibc
import GuestAgent
import Synchronization

/// `guest serve`'s side of `serve.json`: the file is written once serve listens and removed when
/// it exits (also through `exit` after SIGINT/SIGTERM); SIGUSR1 from another guest command that
/// linked meanwhile means "I am done with the relay": serve takes its link back at once.
enum ServeAnnouncement {
    private static let written = Mutex<GuestPaths?>(nil)
    /// SIGUSR1 looks for a replaced link this many times, 100 ms apart.
    static let retakeChecks = 30

    /// Writes `serve.json` for `host:port`; it is removed at exit however the process ends.
    static func announce(_ paths: GuestPaths, host: String, port: Int, tokenFile: String?, log: EventLog) {
        do {
            var file = ServeFile(host: host, port: port)
            file.tokenFile = tokenFile
            try file.write(paths)
        } catch {
            log.write("serve: not announced (other commands will link beside it): \(error)")
            return
        }
        let first = written.withLock { old in defer { old = paths }; return old == nil }
        if first { atexit { ServeAnnouncement.withdraw() } }
    }

    /// Removes `serve.json` when it is still this process's.
    static func withdraw() {
        guard let paths = written.withLock({ $0 }) else { return }
        ServeFile.remove(paths)
    }

    /// SIGUSR1 → `links.retakeNow()`. Installed before `serve.json` names this pid, so the
    /// signal's default action (exit) never meets a serve.
    static func onRetakeSignal(_ links: GuestLinks?, log: EventLog) -> any DispatchSourceSignal {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGUSR1)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        signal(SIGUSR1, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGUSR1, queue: .global())
        source.setEventHandler {
            // The relay's word that our link was replaced may still be on its way: look a little while.
            Task {
                for _ in 0..<retakeChecks {
                    if links?.retakeNow().isEmpty == false { return }
                    try? await Task.sleep(for: .milliseconds(100))
                }
                log.write("serve: another guest command is done with the relay; no link to take back")
            }
        }
        source.resume()
        return source
    }

    /// For the other commands, after their links closed: tell this data directory's serve.
    static func tellServe(_ paths: GuestPaths, log: EventLog) {
        guard let serve = ServeFile.live(paths) else { return }
        if kill(serve.pid, SIGUSR1) == 0 {
            log.write("relay: link closed; told guest serve (pid \(serve.pid)) to take its link back")
        }
    }
}
