import Foundation
import Glibc
import Synchronization
import Testing
@testable import Inference

let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

struct TestSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

/// The project venv's Python (scripts/setup.sh creates it).
func pythonPath() throws -> String {
    let p = packageRoot.appendingPathComponent(".cache/venv/bin/python").path
    guard FileManager.default.isExecutableFile(atPath: p) else {
        throw TestSetupError("Python for the test peers missing at \(p): run scripts/setup.sh")
    }
    return p
}

/// Starts a process whose first stdout line is "PORT n"; it runs until its stdin closes (so it
/// also ends with the test process).
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

    func stop() {
        try? stdin.fileHandleForWriting.close()
        process.terminate()
        process.waitUntilExit()
    }
}

/// The scripted engine (peers/engine_peer.py), one per test process, shared by the tests.
enum ScriptedEngine {
    private static let shared: Result<PortedProcess, Error> = Result {
        try PortedProcess(try pythonPath(), [packageRoot.appendingPathComponent("Tests/InferenceTests/peers/engine_peer.py").path])
    }

    static func port() throws -> Int { try shared.get().port }

    /// Base URL of one scenario: `http://127.0.0.1:PORT/s/NAME`.
    static func url(_ scenario: String) throws -> String { "http://127.0.0.1:\(try port())/s/\(scenario)" }

    /// What the peer recorded for requests carrying `X-Test-ID: id`.
    static func records(_ id: String) async throws -> [[String: Any]] {
        let data = try await get("http://127.0.0.1:\(try port())/record/\(id)")
        return (try JSONSerialization.jsonObject(with: Data(data)) as? [[String: Any]]) ?? []
    }

    static func release(_ id: String) async throws {
        _ = try await get("http://127.0.0.1:\(try port())/release/\(id)")
    }

    /// Waits (up to a hang guard, polling) until the peer recorded an event named `event`.
    static func waitForRecord(_ id: String, event: String) async throws -> [String: Any] {
        for _ in 0..<500 {
            if let r = try await records(id).first(where: { $0["event"] as? String == event }) { return r }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestSetupError("the peer never recorded \(event) for \(id)")
    }
}

/// A GET through the client under test, body collected.
func get(_ url: String, timeouts: HTTPTimeouts = HTTPTimeouts()) async throws -> [UInt8] {
    let r = try await HTTPStreamClient().send(HTTPStreamRequest(url: url, timeouts: timeouts))
    try await r.requireSuccess()
    return try await r.collect()
}

/// A fresh id tying a test's requests to the peer's records.
func testID() -> String { UUID().uuidString.lowercased() }

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

/// Every event of a chat stream, or the error that ended it.
func drain(_ stream: AsyncThrowingStream<ChatEvent, Error>) async -> (events: [ChatEvent], error: Error?) {
    var events: [ChatEvent] = []
    do {
        for try await e in stream { events.append(e) }
        return (events, nil)
    } catch {
        return (events, error)
    }
}

/// The concatenated `.text` of a list of events.
func text(of events: [ChatEvent]) -> String {
    events.reduce(into: "") { acc, e in if case .text(let t) = e { acc += t } }
}

/// A client for a scripted scenario, tagged with the test's id.
func scriptedClient(_ scenario: String, id: String, apiKey: String? = nil,
                    timeouts: HTTPTimeouts = HTTPTimeouts()) throws -> OpenAIChatClient {
    OpenAIChatClient(.init(baseURL: try ScriptedEngine.url(scenario), apiKey: apiKey,
                           extraHeaders: [HTTPHeader("X-Test-ID", id)], timeouts: timeouts))
}

let hello = ChatRequest(model: "scripted", messages: [ChatMessage(role: .user, content: "Say hello")], maxTokens: 8)
