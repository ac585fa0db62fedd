import Foundation

/// Starts the fixtures' children (nats-server, homebase-relay) so that they die with the test
/// process: under `setpriv --pdeathsig KILL`, spawned from one thread that lives as long as the
/// process (the kernel sends the signal when the spawning *thread* exits, so a pool thread that
/// retires would kill its children early).
///
/// Why: a test process that died (a crash, a kill) left its three nats-servers and relays running;
/// the relays hold swift test's stdout pipe (inherited), so `swift test` waited for its EOF until
/// the run's timeout. Reproduced with `kill -9` of the xctest mid-run (docs/CLUSTER.md).
enum ChildSpawner {
    static let setpriv = "/usr/bin/setpriv"

    /// `executable arguments` wrapped in setpriv (unwrapped where setpriv is missing).
    static func wrap(_ executable: String, _ arguments: [String]) -> (String, [String]) {
        guard FileManager.default.isExecutableFile(atPath: setpriv) else { return (executable, arguments) }
        return (setpriv, ["--pdeathsig", "KILL", "--", executable] + arguments)
    }

    /// Runs `body` (which starts a child) on the spawning thread, one at a time, and waits.
    static func run<T>(_ body: @escaping () throws -> T) throws -> T {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        thread.submit {
            box.result = Result { try body() }
            done.signal()
        }
        done.wait()
        return try box.result!.get()
    }

    private static let thread = SpawnThread()
}

private final class ResultBox<T>: @unchecked Sendable {
    var result: Result<T, any Error>? // written on the spawning thread before the semaphore signals
}

/// One permanent thread running submitted jobs in order.
private final class SpawnThread: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [() -> Void] = [] // under `condition`

    init() {
        let t = Thread { [self] in
            while true {
                condition.lock()
                while jobs.isEmpty { condition.wait() }
                let job = jobs.removeFirst()
                condition.unlock()
                job()
            }
        }
        t.name = "test child spawner"
        t.start()
    }

    func submit(_ job: @escaping () -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }
}
