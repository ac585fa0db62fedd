import Foundation
import Glibc
import Testing

let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

struct TestSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

/// A fresh directory under the system's temporary directory.
func temporaryDirectory(_ label: String = "homebase") throws -> String {
    let d = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
    return d.path
}

/// The project venv's Python (scripts/setup.sh creates it).
func pythonPath() throws -> String {
    let p = packageRoot.appendingPathComponent(".cache/venv/bin/python").path
    guard FileManager.default.isExecutableFile(atPath: p) else {
        throw TestSetupError("Python for the test peers missing at \(p): run scripts/setup.sh")
    }
    return p
}

/// A loopback port that nothing listens on (bound, then closed).
func deadPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    addr.sin_port = 0
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { p -> Bool in
            bind(fd, p, len) == 0 && getsockname(fd, p, &len) == 0
        }
    }
    guard bound else { throw TestSetupError("could not bind a loopback port") }
    return Int(UInt16(bigEndian: addr.sin_port))
}

/// A process whose first stdout line is "PORT n"; it runs until its stdin closes.
final class PortedProcess: @unchecked Sendable {
    let process = Process()
    let stdin = Pipe()
    let port: Int

    init(_ executable: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardInput = stdin
        try process.run()
        var line = Data()
        while let b = try out.fileHandleForReading.read(upToCount: 1), !b.isEmpty, b != Data("\n".utf8) { line += b }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("PORT "), let p = Int(text.dropFirst(5)) else {
            process.terminate()
            throw TestSetupError("peer did not report its port: \(text)")
        }
        port = p
    }
}

/// A child process stopped with SIGKILL, then waited for (SIGTERM may be blocked in children
/// spawned from the test runner's threads).
final class ProcessBox: @unchecked Sendable {
    let process = Process()

    init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
         stdout: FileHandle? = nil, stderr: FileHandle? = nil) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardOutput = stdout ?? FileHandle.nullDevice
        process.standardError = stderr ?? FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

/// Polls `condition` every 10 ms up to a hang guard (never a speed assertion).
func eventually(_ what: String, guard seconds: Int = 20, _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    throw TestSetupError("never happened: \(what)")
}
