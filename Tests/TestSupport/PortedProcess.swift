import Foundation
import Glibc

/// Starts a process whose first stdout line is "PORT n"; it runs until its stdin closes (so it
/// also ends with the test process) or `stop()`.
public final class PortedProcess: @unchecked Sendable {
    public let process = Process()
    public let stdin = Pipe()
    public let port: Int

    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let out = Pipe()
        process.standardOutput = out
        process.standardInput = stdin
        try process.run()
        var line = Data()
        while let b = try out.fileHandleForReading.read(upToCount: 1), !b.isEmpty, b != Data("\n".utf8) { line += b }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("PORT "), let p = Int(text.dropFirst(5)) else {
            process.terminate()
            throw SetupError("\((executable as NSString).lastPathComponent) \(arguments.first ?? "") did not report its port: \(text)")
        }
        port = p
    }

    /// Closes its stdin (the peer's cue to end), then SIGTERMs it when `terminate`, and waits.
    public func stop(terminate: Bool = true) {
        try? stdin.fileHandleForWriting.close()
        if terminate { process.terminate() }
        process.waitUntilExit()
    }
}

/// A child process stopped with SIGKILL, then waited for (SIGTERM may be blocked in children
/// spawned from the test runner's threads). stdin is /dev/null; output goes where asked
/// (`log`: stderr appended to that file), else to /dev/null.
public final class ProcessBox: @unchecked Sendable {
    public let process = Process()

    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                stdout: FileHandle? = nil, stderr: FileHandle? = nil, log: String? = nil) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardOutput = stdout ?? FileHandle.nullDevice
        let logHandle = try log.map { try FileHandle(forWritingTo: URL(fileURLWithPath: $0)) }
        process.standardError = stderr ?? logHandle ?? FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    public func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
