import Foundation
import CLinux
import Glibc
import Synchronization

/// A child process started with `posix_spawn`, owned by the supervisor.
///
/// The child gets an empty signal mask and default dispositions: a parent that blocks SIGTERM
/// (test runners do) would otherwise hand that mask down, and llama-server would never see the
/// SIGTERM that asks it to stop. stdin is /dev/null; stdout and stderr go to `logPath`
/// (appended, 0600) or /dev/null; every other descriptor is closed in the child.
public final class ChildProcess: Sendable {
    public let pid: pid_t
    /// The exit status once reaped (waitpid's raw status); nil while running.
    private let reaped = Mutex<Int32?>(nil)
    /// The engine's ready-line pipes (`ReadyLine`): its stdin is closed once it is reaped.
    let readyLine: ReadyLine?

    private init(pid: pid_t, readyLine: ReadyLine? = nil) { self.pid = pid; self.readyLine = readyLine }

    /// `environment`: the child's (nil: ours). `newSession`: the child leads a session of its own
    /// (setsid), so a terminal's hang-up or Ctrl-C aimed at our process group never reaches it.
    public static func spawn(_ path: String, _ arguments: [String], logPath: String?, environment: [String: String]? = nil,
                      newSession: Bool = false) throws(EngineError) -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let out = logPath ?? "/dev/null"
        posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else of ours crosses over: not a listening socket, not a pipe someone waits
        // to see closed (the server would hold it open for as long as it runs).
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)

        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attr, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGQUIT] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigdefault(&attr, &defaults)
        // POSIX_SPAWN_SETSID (glibc 2.26+) is declared only under _GNU_SOURCE, which Glibc's module lacks.
        let setsid: Int32 = newSession ? 0x80 : 0
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | setsid))

        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { for p in envp ?? [] { free(p) } }
        var pid: pid_t = 0
        let rc = envp.map { posix_spawn(&pid, path, &actions, &attr, argv, $0) } ?? posix_spawn(&pid, path, &actions, &attr, argv, environ)
        guard rc == 0 else { throw .spawnFailed(binary: path, errno: rc) }
        return ChildProcess(pid: pid)
    }

    /// A child that dies with this process, however it ends (see `LeashThread`): the engine. Same
    /// descriptors, mask and dispositions as `spawn`; our environment plus `environment`.
    /// `readyLine`: its stdin and stdout are that object's pipes (stderr alone goes to the log).
    static func spawnLeashed(_ path: String, _ arguments: [String], logPath: String?, environment extra: [String: String] = [:],
                             readyLine: ReadyLine? = nil) throws(EngineError) -> ChildProcess {
        let input = readyLine.map { $0.childInput } ?? open("/dev/null", O_RDONLY | O_CLOEXEC)
        let log = open(logPath ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        let output = readyLine.map { $0.childOutput } ?? log
        defer {
            if readyLine == nil, input >= 0 { close(input) }
            if log >= 0 { close(log) }
            readyLine?.spawned(log: logPath)
        }
        guard input >= 0, log >= 0 else { throw .spawnFailed(binary: path, errno: errno) }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        var variables = ProcessInfo.processInfo.environment
        for (k, v) in extra { variables[k] = v }
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in argv + envp { free(p) } }
        // Raw addresses cross to the leash thread; the arrays outlive the call (it blocks).
        let a = Int(bitPattern: argv.withUnsafeBufferPointer { $0.baseAddress }),
            e = Int(bitPattern: envp.withUnsafeBufferPointer { $0.baseAddress })
        let (pid, err) = LeashThread.shared.run { () -> (pid_t, Int32) in
            let pid = hb_spawn_leashed(path, UnsafePointer(bitPattern: a), UnsafePointer(bitPattern: e), input, output, log)
            return (pid, pid < 0 ? hb_errno() : 0)
        }
        guard pid > 0 else { throw .spawnFailed(binary: path, errno: err) }
        return ChildProcess(pid: pid, readyLine: readyLine)
    }

    /// Reaps the child if it has exited (never blocks). True while it runs.
    public var isRunning: Bool { exitStatus() == nil }

    /// waitpid's status once the child exited, nil while it runs.
    public func exitStatus() -> Int32? {
        reaped.withLock { status in
            if let status { return status }
            var raw: Int32 = 0
            let r = waitpid(pid, &raw, WNOHANG)
            // ECHILD: someone else reaped it; it is gone either way.
            if r == pid || (r < 0 && errno == ECHILD) {
                status = raw
                readyLine?.closeInput()
            }
            return status
        }
    }

    /// SIGTERM, then SIGKILL after `grace` if it still runs (llama-server can be slow to leave
    /// on SIGTERM), then reaps it. Idempotent.
    public func terminate(grace: Duration, poll: Duration = .milliseconds(10)) async {
        // Detached: a cancelled caller (a start given up) must still wait out the grace, not
        // spin through sleeps that return at once.
        await Task.detached { await self.signalAndReap(grace: grace, poll: poll) }.value
    }

    private func signalAndReap(grace: Duration, poll: Duration) async {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        // A router child waits for EOF on its stdin before it exits, SIGTERM or not.
        readyLine?.closeInput()
        let start = ContinuousClock.now
        while isRunning, ContinuousClock.now - start < grace {
            try? await Task.sleep(for: poll)
        }
        if isRunning {
            kill(pid, SIGKILL)
            while isRunning { try? await Task.sleep(for: poll) }
        }
    }

    /// A human word for a waitpid status: "exit 1", "signal 9".
    public static func describe(_ status: Int32) -> String {
        let signal = status & 0x7f
        return signal == 0 ? "exit \((status >> 8) & 0xff)" : "signal \(signal)"
    }
}

/// A loopback TCP port that was free a moment ago: bound to port 0, read back, closed. The
/// server may lose the race for it; the supervisor then sees it exit and tries another.
func freeLoopbackPort() throws(EngineError) -> UInt16 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw .noFreePort(errno: errno) }
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = 0
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &addr) { p in
        p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
            bind(fd, sa, len) == 0 && getsockname(fd, sa, &len) == 0
        }
    }
    guard bound else { throw .noFreePort(errno: errno) }
    return UInt16(bigEndian: addr.sin_port)
}
