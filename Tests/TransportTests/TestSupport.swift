import Dispatch
import Foundation
import Synchronization
import Testing
@testable import Transport

/// Hang guard for waits on real sockets: generous, never a speed assertion.
let hangGuard: DispatchTimeInterval = .seconds(30)

let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The project venv's Python (scripts/setup.sh creates it with `websockets`).
func pythonPath() throws -> String {
    let p = packageRoot.appendingPathComponent(".cache/venv/bin/python").path
    guard FileManager.default.isExecutableFile(atPath: p) else {
        throw TestSetupError("Python peer missing at \(p): run scripts/setup.sh (it creates .cache/venv with websockets)")
    }
    return p
}

struct TestSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

/// Runs a Python peer script to completion; returns its exit status and last output line.
func runPeer(_ args: [String], env: [String: String] = [:]) throws -> (status: Int32, line: String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: try pythonPath())
    p.arguments = [packageRoot.appendingPathComponent("Tests/TransportTests/peers").path + "/" + args[0]] + args.dropFirst()
    p.environment = ProcessInfo.processInfo.environment.merging(env) { $1 }
    let out = Pipe()
    p.standardOutput = out
    p.standardError = out
    try p.run()
    let guardTimer = DispatchSource.makeTimerSource()
    guardTimer.schedule(deadline: .now() + .seconds(60))
    guardTimer.setEventHandler { p.terminate() }
    guardTimer.resume()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    guardTimer.cancel()
    let text = String(decoding: data, as: UTF8.self)
    return (p.terminationStatus, text.split(separator: "\n").last.map(String.init) ?? "")
}

/// A Python server peer kept running until `stop()`.
final class ServerPeer: @unchecked Sendable {
    let process = Process()
    let stdin = Pipe()
    let port: UInt16

    init(_ script: String, _ args: [String]) throws {
        process.executableURL = URL(fileURLWithPath: try pythonPath())
        process.arguments = [packageRoot.appendingPathComponent("Tests/TransportTests/peers/\(script)").path] + args
        let out = Pipe()
        process.standardOutput = out
        process.standardInput = stdin
        try process.run()
        var line = Data()
        while let b = try out.fileHandleForReading.read(upToCount: 1), !b.isEmpty, b != Data("\n".utf8) { line += b }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("PORT "), let p = UInt16(text.dropFirst(5)) else {
            process.terminate()
            throw TestSetupError("server peer did not report its port: \(text)")
        }
        port = p
    }

    func stop() {
        try? stdin.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

/// A loop on its own thread, shut down by `stop()`.
final class LoopHarness: @unchecked Sendable {
    let loop: EventLoop
    init() throws {
        loop = try EventLoop()
        try loop.start()
    }
    func stop() { loop.shutdown(); loop.join() }

    /// Runs `body` on the loop thread and returns its result.
    func sync<T: Sendable>(_ body: @escaping @Sendable () throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let box = Mutex<Result<T, any Error>?>(nil)
        loop.execute {
            let r = Result { try body() }
            box.withLock { $0 = r }
            done.signal()
        }
        guard done.wait(timeout: .now() + hangGuard) == .success else { throw TestSetupError("loop did not run the work") }
        return try box.withLock { $0! }.get()
    }
}

/// A thread-safe queue of events the test waits on.
final class Inbox<T: Sendable>: Sendable {
    private let items = Mutex<[T]>([])
    private let count = DispatchSemaphore(value: 0)

    func put(_ item: T) { items.withLock { $0.append(item) }; count.signal() }

    func take() throws -> T {
        guard count.wait(timeout: .now() + hangGuard) == .success else { throw TestSetupError("no event arrived") }
        return items.withLock { $0.removeFirst() }
    }
}

/// A self-signed certificate for "localhost" and 127.0.0.1, written by the openssl CLI.
func makeCertificate(in dir: URL, name: String) throws -> (cert: String, key: String) {
    let cert = dir.appendingPathComponent("\(name).crt").path
    let key = dir.appendingPathComponent("\(name).key").path
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
    p.arguments = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                   "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=localhost",
                   "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"]
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    try p.run()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { throw TestSetupError("openssl req failed") }
    return (cert, key)
}

func temporaryDirectory() throws -> URL {
    let d = FileManager.default.temporaryDirectory.appendingPathComponent("transport-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
    return d
}

/// An echo server: binary and text messages come back unchanged; `/healthz` answers "ok".
func startEchoServer(_ h: LoopHarness, _ configure: (inout WebSocketServer.Configuration) -> Void = { _ in },
                     tls: TLSServerContext? = nil) throws -> UInt16 {
    var cfg = WebSocketServer.Configuration()
    configure(&cfg)
    let config = cfg
    return try h.sync {
        let server = try WebSocketServer(loop: h.loop, configuration: config, tls: tls, onUpgrade: { ws in
            ws.onMessage = { ws, m in
                switch m {
                case .binary(let b): ws.send(binary: b)
                case .text(let t): ws.send(text: t)
                }
            }
        }, endpoint: { r in r.path == "/healthz" ? HTTPResponse(status: .ok, text: "ok\n") : nil })
        return server.port
    }
}
