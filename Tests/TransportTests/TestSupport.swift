// pythonPath, packageRoot, PortedProcess and the certificate fixture are TestSupport's,
// re-exported for every file of this target.
@_exported import TestSupport
import Dispatch
import Foundation
import Synchronization
import Testing
@testable import Transport

/// Hang guard for waits on real sockets: generous, never a speed assertion.
let hangGuard: DispatchTimeInterval = .seconds(30)

/// This target's setup errors are TestSupport's.
typealias TestSetupError = SetupError

/// Runs a Python peer script to completion; returns its exit status and last output line.
func runPeer(_ args: [String], env: [String: String] = [:]) throws -> (status: Int32, line: String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: try pythonPath())
    p.arguments = [testsFile("TransportTests/peers/" + args[0])] + args.dropFirst()
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

/// A Python server peer kept running until `stop()` (TestSupport's PortedProcess).
final class ServerPeer: Sendable {
    let peer: PortedProcess
    var port: UInt16 { UInt16(peer.port) }

    init(_ script: String, _ args: [String]) throws {
        peer = try PortedProcess(try pythonPath(), [testsFile("TransportTests/peers/\(script)")] + args)
    }

    func stop() { peer.stop(terminate: false) }
}

/// A loop on its own thread (TestSupport's).
typealias LoopHarness = LoopThread

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
