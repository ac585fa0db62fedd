import CLinux
import Foundation
import Glibc
import Synchronization

/// llama-server's own word that its model is loaded, read from a pipe: no /health poll tick
/// between "ready" and the guest knowing it.
///
/// llama-server run as a child of its router (`LLAMA_SERVER_ROUTER_PORT` set: llama.cpp's
/// tools/server/server-models.cpp, `server_child`) writes `cmd_child_to_router:state:{"state":
/// "ready",...}` on its stdout once the model is loaded (its logs go to stderr then), and exits
/// at EOF on its stdin. The supervisor gives it both: stdout a pipe read here, stdin a pipe this
/// object holds open until the server is stopped (a second leash: the guest gone, the pipe
/// closes). A server without that protocol only prints its usual output here (copied to the
/// log); the /health polls still find it healthy.
final class ReadyLine: Sendable {
    /// What the child is started with.
    static let environment = ["LLAMA_SERVER_ROUTER_PORT": "0"]
    static let prefix = "cmd_child_to_router:state:"

    /// The child's stdin (read end) and stdout (write end), closed here once it is spawned.
    let childInput: Int32, childOutput: Int32
    /// Our end of the child's stdin: held open while it runs (EOF stops it).
    private let keepOpen: Mutex<Int32>
    private let readEnd: Int32
    private let said = Said()

    /// Two pipes, close-on-exec: the child gets its ends by dup2 only, no other child gets any.
    init() throws(EngineError) {
        var input: [Int32] = [-1, -1], output: [Int32] = [-1, -1]
        guard pipe2(&input, O_CLOEXEC) == 0 else { throw .spawnFailed(binary: "pipe", errno: errno) }
        guard pipe2(&output, O_CLOEXEC) == 0 else {
            let e = errno
            close(input[0]); close(input[1])
            throw .spawnFailed(binary: "pipe", errno: e)
        }
        childInput = input[0]; keepOpen = Mutex(input[1])
        readEnd = output[0]; childOutput = output[1]
    }

    deinit {
        closeInput()
    }

    /// After the spawn (or its failure): the child's ends are closed here, and the reader starts;
    /// `log` gets what is not the protocol (appended), nil drops it.
    func spawned(log: String?) {
        close(childInput); close(childOutput)
        let fd = readEnd, said = self.said
        let logFD = log.map { open($0, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600) } ?? -1
        let thread = Thread {
            Self.read(fd, log: logFD) { said.fire(ready: true) }
            said.fire(ready: false)
            close(fd)
            if logFD >= 0 { close(logFD) }
        }
        thread.name = "homebase-engine-ready"
        thread.start()
    }

    /// The server said it is ready.
    var isReady: Bool { said.now.ready }
    /// Its stdout closed: it exited (or is exiting).
    var hasEnded: Bool { said.now.ended }

    /// Returns at the ready line, at the end of the server's output, or after `limit`.
    func wait(atMost limit: Duration) async {
        let now = said.now
        if now.ready || now.ended {
            try? await Task.sleep(for: limit)  // said already: the caller polls at its own pace
            return
        }
        await said.wait(atMost: limit)
    }

    /// Closes the child's stdin (it exits at EOF). Idempotent.
    func closeInput() {
        keepOpen.withLock { fd in
            if fd >= 0 { close(fd); fd = -1 }
        }
    }

    /// Reads lines until EOF: `ready` at the ready line; other lines to `log`.
    private static func read(_ fd: Int32, log: Int32, ready: () -> Void) {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            pending += buffer[0..<n]
            while let newline = pending.firstIndex(of: 0x0A) {
                let line = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                if isReadyLine(line) { ready() } else if log >= 0, !line.starts(with: Array(prefix.utf8)) {
                    _ = (line + [0x0A]).withUnsafeBytes { Glibc.write(log, $0.baseAddress, $0.count) }
                }
            }
            // A protocol line is short; a long run without a newline is ordinary output.
            if pending.count > 1 << 16 {
                if log >= 0 { _ = pending.withUnsafeBytes { Glibc.write(log, $0.baseAddress, $0.count) } }
                pending.removeAll()
            }
        }
    }

    /// `cmd_child_to_router:state:{"state":"ready",...}`.
    static func isReadyLine(_ line: [UInt8]) -> Bool {
        let p = Array(prefix.utf8)
        guard line.starts(with: p),
              let object = try? JSONSerialization.jsonObject(with: Data(line[p.count...])) as? [String: Any] else { return false }
        return object["state"] as? String == "ready"
    }
}

/// What the reader has seen: the ready line, the end of the output. `wait(atMost:)` returns at
/// the first of them or after the limit, whichever is first.
final class Said: Sendable {
    private struct State {
        var ready = false
        var ended = false
        var fired: Bool { ready || ended }
        var next: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    }
    private let state = Mutex(State())

    var now: (ready: Bool, ended: Bool) { state.withLock { ($0.ready, $0.ended) } }

    /// `ready`: the ready line; false: the end of the output.
    func fire(ready: Bool) {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            if ready { s.ready = true } else { s.ended = true }
            defer { s.waiters = [:] }
            return Array(s.waiters.values)
        }
        for w in waiters { w.resume() }
    }

    func wait(atMost limit: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.fired() }
            group.addTask { try? await Task.sleep(for: limit) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Returns at the fire, or at once when cancelled.
    private func fired() async {
        let id = state.withLock { s -> UInt64 in s.next += 1; return s.next }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if s.fired || Task.isCancelled { return true }
                    s.waiters[id] = c
                    return false
                }
                if now { c.resume() }
            }
        } onCancel: {
            let c = state.withLock { $0.waiters.removeValue(forKey: id) }
            c?.resume()
        }
    }
}
